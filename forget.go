package stet

// Forget drops the session named id from this Workspace's memory, for a
// server that ends sessions it opened (such as those named by the session
// handles of stateless MCP requests). Nothing is removed from the journal:
// a later Session(id) rebuilds the session from it, as another process
// would. A call still running in the dropped session finishes normally.
func (ws *Workspace) Forget(id string) {
	if id == "" {
		id = "default"
	}
	ws.mu.Lock()
	delete(ws.sessions, id)
	ws.mu.Unlock()
}
