// Package stall counts an agent's review stall: consecutive steps whose
// tool calls changed nothing (SPEC section 8).
//
// A Counter holds one session's count. Turn starts a turn and sets its
// threshold N; Step reports each step's calls and returns what the next
// step gets: one notice when the count reaches N, and a cut of the tool
// set from 2N on. A step with a landed mutation or a fan-out resets the
// count; a refused call counts as read-only.
//
// The package decides and words the notice; the caller (the facade, the
// MCP server) applies it. It does no IO and has no global state.
package stall
