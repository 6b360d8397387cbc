package stet

import (
	"strings"

	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/receipt"
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

// declaredInput refuses, with kind input, a change that would take a
// declared input away from its name or put other bytes there wholesale
// (SPEC rule 8: a declared input is edit-only for its session): a write in
// any mode, a delete, a move away from it or onto it, a patch section that
// deletes or adds it. what says what the call would do to it ("delete it",
// "move it away"). counts, when the call replaces existing bytes, gives the
// rule's own wording with the counts (policy.InputRefusal).
func (s *Session) declaredInput(t target, what, counts string) *Refusal {
	if s.ws.opts.NoGate || !s.isDeclared(t) {
		return nil
	}
	if counts != "" {
		return &Refusal{Kind: KindInput, Path: t.spelled, Message: policy.InputRefusal(shownName(t.spelled), counts)}
	}
	return refuse(KindInput, t.spelled, "%s is an input this fan-out declared; a worker edits it in place (edit / patch) and cannot %s; if the task needs that, say so in your reply so the orchestrator can redeclare it", t.spelled, what)
}

// declaredUnder refuses a change to the directory t (a move) that would
// carry a declared input away with it.
func (s *Session) declaredUnder(t target, what string) *Refusal {
	if s.ws.opts.NoGate {
		return nil
	}
	_, inputs := s.pinned()
	prefix := t.key() + "/"
	for _, in := range inputs {
		if it, ref := s.ws.resolve("turn", in); ref == nil && strings.HasPrefix(it.key(), prefix) {
			return refuse(KindInput, t.spelled, "%s holds %s, an input this fan-out declared; a worker edits it in place (edit / patch) and cannot %s; move the other files one by one, or say so in your reply so the orchestrator can redeclare it", t.spelled, in, what)
		}
	}
	return nil
}

// recreateGuard applies rule 8 to a create at a name where a user's file
// stood until this session deleted or moved it away: putting new bytes
// there replaces that file as surely as a write over it would, so a file
// the request names needs overwrite: true here too (declared inputs are
// refused by declaredInput before this). A name the session never removed
// is an ordinary create.
func (s *Session) recreateGuard(t target, post []byte, overwrite bool) *Refusal {
	if s.ws.opts.NoGate {
		return nil
	}
	was, ok := s.removedFile(t.key())
	if !ok || was.Bytes == 0 {
		return nil
	}
	counts := policy.Counts(was.Bytes, was.Lines, len(post), receipt.Lines(post))
	return s.inputGuard(t, counts, overwrite)
}
