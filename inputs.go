package stet

// declaredInput refuses, with kind input, a change that would take a
// declared input away from its name (SPEC rule 8: a declared input is
// edit-only for its session): a move away from it or onto it. what says
// what the call would do to it ("move it away", "replace it").
func (s *Session) declaredInput(t target, what string) *Refusal {
	if s.ws.opts.NoGate {
		return nil
	}
	_, inputs := s.Request()
	key := t.key()
	for _, in := range inputs {
		it, ref := s.ws.resolve("move", in)
		if ref == nil && it.key() == key {
			return refuse(KindInput, t.spelled, "%s is an input this fan-out declared; a worker edits it in place (edit / patch) and cannot %s; if the task needs that, say so in your reply so the orchestrator can redeclare it", t.spelled, what)
		}
	}
	return nil
}
