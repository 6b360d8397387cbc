package engine

import (
	"strings"
)

// isDeclared reports whether t is one of the session's declared inputs,
// compared by resolved identity (as the tools resolve paths), so that any
// spelling of the file, or a symlink to it, counts.
func (s *Session) isDeclared(t Target) bool {
	_, inputs := s.pinned()
	if len(inputs) == 0 {
		return false
	}
	key := t.Key()
	for _, in := range inputs {
		if it, ref := s.WS.Resolve("turn", in); ref == nil && it.Key() == key {
			return true
		}
	}
	return false
}

// declaredUnder returns the first declared input (as declared) that lies
// under the directory t, or "": a move of t would carry it away.
func (s *Session) DeclaredUnder(t Target) string {
	_, inputs := s.pinned()
	prefix := t.Key() + "/"
	for _, in := range inputs {
		if it, ref := s.WS.Resolve("turn", in); ref == nil && strings.HasPrefix(it.Key(), prefix) {
			return in
		}
	}
	return ""
}
