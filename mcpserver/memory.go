package mcpserver

import (
	"container/list"
	"sync"
)

// memSessions bounds the sessions a server holds in memory for calls that
// name them (a stateless handle, _meta "stet/session"); a connection's own
// session is held while it is open and does not count.
const memSessions = 256

// memory keeps the most recently used session ids, at most max; touching
// one more drops the least recently used through drop (from memory only:
// the session stays in the journal and comes back when used again).
type memory struct {
	mu    sync.Mutex
	max   int
	ids   map[string]*list.Element
	order *list.List // of string, most recent at the front
	drop  func(id string)
}

func newMemory(max int, drop func(string)) *memory {
	return &memory{max: max, ids: map[string]*list.Element{}, order: list.New(), drop: drop}
}

// touch marks id used now, dropping the least recently used over the
// bound (drop runs without m's lock).
func (m *memory) touch(id string) {
	m.mu.Lock()
	if e, ok := m.ids[id]; ok {
		m.order.MoveToFront(e)
		m.mu.Unlock()
		return
	}
	m.ids[id] = m.order.PushFront(id)
	var gone []string
	for m.order.Len() > m.max {
		old := m.order.Remove(m.order.Back()).(string)
		delete(m.ids, old)
		gone = append(gone, old)
	}
	m.mu.Unlock()
	for _, id := range gone {
		m.drop(id)
	}
}
