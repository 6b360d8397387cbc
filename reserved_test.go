package stet_test

import (
	"testing"

	"github.com/stet-dev/stet"
)

// TestReservedSessionNames: the names stet keeps for its own records are
// reserved, and a session of one of them is refused, naming another.
func TestReservedSessionNames(t *testing.T) {
	ws, _, _ := open(t, map[string]string{"a.txt": "a\n"}, stet.Options{})
	for _, id := range []string{"review", "stet:intents", " STET:x"} {
		if !stet.ReservedSession(id) {
			t.Errorf("%q is not reserved", id)
		}
		if _, err := ws.Session(id); err == nil {
			t.Errorf("session %q was opened", id)
		}
	}
	for _, id := range []string{"default", "reviewer", "s1"} {
		if stet.ReservedSession(id) {
			t.Errorf("%q is reserved", id)
		}
		if _, err := ws.Session(id); err != nil {
			t.Errorf("session %q: %v", id, err)
		}
	}
}
