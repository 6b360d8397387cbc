// Package stet is the file layer an AI coding agent stands on: read, edit,
// write, patch, list, find, grep, info, roots, mkdir, move, delete and undo
// over one or more workspace roots, guarded so that the user's data is
// never lost.
//
// Open a Workspace over its roots, take a Session per agent, and call one
// method per tool (or Session.Call with a tool's JSON arguments, as the MCP
// server and the CLI do). Every path is confined to its root by the
// backend's one walk; every change passes the rules of SPEC section 4 in
// order, lands through one commit sequence, is read back and verified
// against its receipt, and is recorded in the journal, from which undo
// restores exact bytes.
//
// A refusal is returned as a *Refusal error: a result, not a crash. Its
// Message names the file, what was seen and the one next step; its Kind is
// stable API.
//
// # Where things live
//
// Package stet is the facade: the handles (Workspace, Session), one file
// per tool, and the table of tools (table.go: each tool's name, argument
// type, method, text, and whether a result changed the tree). Under it, internal/engine holds what every tool
// stands on: targets and the rules asked on every name, refusals, the one
// commit sequence (plans, intents, recovery, revert), and a session's
// state rebuilt from the journal; its doc.go is the map. The engine
// cannot name a tool: a reference upward does not compile.
//
// The one walk. Every name is resolved component by component, following
// symlinks only while they stay in the root, by fsys/internal/confine and
// performed through os.Root by fsys/local (fsys/memfs does the same in
// memory). The engine's target.go maps a user's path into one root and
// holds it; search.go here walks directories for list, find and grep
// (Workspace.walk), always through the provider.
//
// The tools, one file each, build their changes and hand them to the
// engine's Session.Commit (or CommitSeq for several): edit.go, write.go,
// delete.go, move.go, patch.go, undo.go; none keeps its own receipt,
// journal or lock path. mkdir.go makes directories through the provider
// (MkdirAll, which creates and never replaces), gated as a change is, with
// no receipt: a directory made holds nothing to lose. read.go (with readfiles.go, readbytes.go,
// media.go), info.go, search.go (list, find), grep.go (with grep_hold.go,
// grep_lit.go, grep_large.go, grep_text.go, grep_rows.go, grep_record.go),
// roots.go and multiroot.go read. client.go puts a client's own tools
// (hooks) under the same rules. The person's side: review.go, undoset.go,
// audit.go (log, show, verify), gc.go. call.go is the JSON entry point.
//
// Where each rule is decided. Rule 1 (arguments): package tools (Decode,
// Validate), for every surface. Rule 2 (confinement): the backend. Rules 3
// and 4 (effects, protected and deny-read paths): the engine's gate.go and
// rootrules.go, with the rules themselves in policy/rules.go. Rules 5 to 8
// (observation, freshness, binding, input guard): policy.Decide, from the
// facts the engine's ask.go gathers. Rule 9 (warn and save): policy/warn.go
// words it, the engine saves the bytes.
//
// The journal's format. Package journal writes the files and the line (the
// hash chain, the session index, the blob store: journal/doc.go);
// internal/history holds the records stet writes there and their table:
// what each does to a session's state, how long gc keeps it, where the
// review and the audit show it.
//
// # What it must not do
//
// This package must not open user files except through a root's
// fsys.Provider, must not decide a rule or write the journal itself (the
// engine does), must not format wire protocols (that is mcpserver's and
// cmd/stet's job), and must not keep state outside the Workspace value.
package stet
