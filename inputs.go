package stet

import (
	"strings"
)

// isDeclared reports whether t is one of the session's declared inputs,
// compared by resolved identity (as the tools resolve paths), so that any
// spelling of the file, or a symlink to it, counts.
func (s *Session) isDeclared(t target) bool {
	_, inputs := s.pinned()
	if len(inputs) == 0 {
		return false
	}
	key := t.key()
	for _, in := range inputs {
		if it, ref := s.ws.resolve("turn", in); ref == nil && it.key() == key {
			return true
		}
	}
	return false
}

// declaredUnder returns the first declared input (as declared) that lies
// under the directory t, or "": a move of t would carry it away.
func (s *Session) declaredUnder(t target) string {
	_, inputs := s.pinned()
	prefix := t.key() + "/"
	for _, in := range inputs {
		if it, ref := s.ws.resolve("turn", in); ref == nil && strings.HasPrefix(it.key(), prefix) {
			return in
		}
	}
	return ""
}
