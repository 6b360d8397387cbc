// Command stet is the command-line surface of stet: one subcommand per tool
// (read, edit, write, patch, list, find, grep, mkdir, move, delete, undo),
// plus call, turn, log, show, verify, tools, mcp, setup (an MCP client's
// configuration for stet) and version.
//
// Usage:
//
//	stet [global flags] <command> [flags] [args]
//
// Global flags, accepted before or after the command: --root DIR (repeatable;
// default the current directory), --session ID (STET_SESSION, default
// "default"), --state DIR (STET_STATE), --effects read-only|workspace-write
// (STET_EFFECTS), --json, --binding, --protect GLOB, --no-default-protect,
// --deny-read GLOB, --max-read-bytes N.
//
// Exit codes: 0 done, 1 failed, 2 bad usage, 3 refused by policy.
//
// This command must stay thin: it translates flags to facade calls and
// results to text or JSON, and owns no rule of its own.
package main
