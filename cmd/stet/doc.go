// Command stet is the command-line surface of stet: one subcommand per tool
// (read, info, roots, edit, write, patch, list, find, grep, mkdir, move,
// delete, undo), the person's side of the journal (diff, review, log, show,
// verify, gc, and undo --session/--turn/--receipt), the agent loop's turn,
// call (one tool call with JSON arguments), tools (the definitions), mcp
// (the MCP server), setup (an MCP client's configuration for stet, printed
// or merged into its file), version, completion and help.
//
// Usage:
//
//	stet [global flags] <command> [flags] [args]
//
// Global flags, accepted before or after the command: --root DIR (repeatable;
// default the current directory, never / or the home directory; stet mcp
// has none by default), --session ID (STET_SESSION, default "default"),
// --state DIR (STET_STATE), --effects read-only|workspace-write
// (STET_EFFECTS), --json, --binding seen|read|full, --protect GLOB,
// --no-default-protect, --deny-read GLOB, --max-read-bytes N.
//
// Exit codes: 0 done, 1 failed (grep: no match), 2 bad usage (grep: an
// error, as grep exits), 3 refused by policy.
//
// Files: main.go (globals, dispatch, exit codes), commands.go (the tools),
// audit.go (turn, log, show, verify, gc), review.go (diff, review, undo
// sets), mcp.go (stet mcp), setup.go (stet setup, with internal/cfgedit),
// usage.go (help and completion).
//
// This command must stay thin: it translates flags to facade calls and
// results to text or JSON, and owns no rule of its own: every check on a
// path or a change is the facade's, every argument check package tools'.
package main
