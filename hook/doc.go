// Package hook puts a client's own file tools under stet's rules and
// journal: it reads one hook event of a client (Claude Code, Codex, Cursor,
// Gemini CLI, VS Code), turns it into the facade calls that decide, save,
// observe and record it ([stet.Session.PrepareClient],
// [stet.Session.FinishClient], [stet.Session.ObserveClient],
// [stet.Session.Turn]), and answers in that client's documented format and
// exit codes (SPEC section 10).
//
// Each client is one row of [Clients]: how its events are read (which
// event is a prompt, a read, a change before or after it runs) and how an
// answer is written (a refusal that blocks the call, a note for the model,
// no opinion). The rules themselves are the facade's: this package owns
// none, as package mcpserver owns none.
//
// What it must not do: write a user's file (the client does that), decide
// anything the facade did not, or fail a client's call for a reason of its
// own. An event it cannot read is answered "no opinion" and reported on
// the log; a change it cannot decide (the journal cannot be opened or
// written) is refused with the reason and the way out; a read it cannot
// decide is let through with a warning.
package hook
