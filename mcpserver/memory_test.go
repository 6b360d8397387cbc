package mcpserver

// len returns how many ids m holds.
func (m *memory) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.order.Len()
}
