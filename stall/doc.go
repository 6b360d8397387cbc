// Package stall counts an agent's review stall: consecutive steps whose
// tool calls changed nothing (SPEC section 8).
//
// A Counter holds one session's count, with the threshold N given to New.
// Turn starts a turn: the count resets, and N is halved for a message that
// asks to repair a failure (Repair). Step reports each step's calls and
// returns what the next step gets: one notice (NoticeText) when the count
// reaches N, and a cut of the tool set from 2N on. A step with a landed
// mutation or a fan-out resets the count; a refused or dry-run call counts
// as read-only. PhaseOf names the phase a refusal's details report.
//
// The package decides and words the notice; the caller (the MCP server,
// per stet session) applies it. It must do no IO and have no global state;
// a Counter is safe for concurrent use.
package stall
