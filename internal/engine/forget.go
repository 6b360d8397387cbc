package engine

// Forget drops the session named id from this Workspace's memory, for a
// server that ends sessions it opened (such as those named by the session
// handles of stateless MCP requests). Nothing is removed from the journal:
// a later Session(id) rebuilds the session from it, as another process
// would. A call still running in the dropped session finishes normally.
// It returns the session dropped, or nil.
func (ws *Workspace) Forget(id string) *Session {
	if id == "" {
		id = "default"
	}
	ws.Mu.Lock()
	defer ws.Mu.Unlock()
	s := ws.Sessions[id]
	delete(ws.Sessions, id)
	return s
}
