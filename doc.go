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
// The one walk. Every name is resolved component by component, following
// symlinks only while they stay in the root, by fsys/internal/confine and
// performed through os.Root by fsys/local (fsys/memfs does the same in
// memory). Here, target.go maps a user's path into one root and resolves
// it (target.resolved); scope.go narrows a session to a client's
// directories on resolved paths; search.go walks directories for list,
// find and grep (Workspace.walk), always through the provider.
//
// The one commit sequence. sequence.go is the sequence every change goes
// through (its head lists the steps): plan the receipt, then at once save
// what the change takes away, make the write-ahead intent durable and
// write the temp file, swap through the provider (compare-and-swap, proved
// at the swap; a replaced or deleted file is handed to the journal's object
// store there, keep.go), read back, verify (receipt.Verify), record.
// plan.go has one small plan per kind of change (create, replace, delete,
// move, directory move) saying what each step does for it; commit.go holds
// the change and the steps' helpers; intent.go writes intents and resolves
// a crashed change at Open; commitSeq in sequence.go lands several changes
// (a patch's files, an undo set) as one intent; steptime.go times the
// steps for the benchmarks; lock.go takes every per-file lock in one
// order. edit.go, write.go, delete.go, move.go, mkdir.go, patch.go,
// undo.go and revert.go build their changes and hand them to it; none keeps
// its own receipt, journal or lock path.
//
// Where each rule is decided. Rule 1 (arguments): package tools (Decode,
// Validate), for every surface. Rule 2 (confinement): the backend, as
// above. Rules 3 and 4 (effects, protected and deny-read paths, the floor
// that Options.NoGate keeps): gate.go, on every name a path goes by, with
// rootrules.go for nested roots and the rules themselves in policy/rules.go.
// Rules 5 to 8 (observation, freshness, binding, input guard): policy.Decide
// in policy/decide.go, from the facts ask.go gathers; ask.go and shown.go
// word the refusals and show what a session must see. Rule 9 (warn and
// save): policy/warn.go words it, commit.go saves the bytes.
//
// The journal's format. Package journal writes the files and the line (the
// hash chain, the session index, the blob store: journal/doc.go);
// internal/history holds the records stet writes there (observations,
// receipts, undos, intents, turns, snapshots) and how a session is replayed
// from them.
//
// Targets and refusals. target.go is a path mapped into a root and every
// name it goes by; refusal.go is the Refusal type, its kinds, and the
// refusal made from each backend error.
//
// The tools, one file each: read.go (with readfiles.go, readbytes.go,
// media.go), info.go, search.go (list, find), grep.go (with grep_hold.go,
// grep_lit.go, grep_large.go, grep_text.go), roots.go and multiroot.go (several roots). The session:
// session.go (its state and turns, rebuilt from the journal, snapshot.go),
// inputs.go (declared inputs). The person's side: review.go, undoset.go,
// audit.go (log, show, verify), gc.go. call.go is the JSON entry point and
// the text every surface shows; workspace.go opens and configures it all.
//
// # What it must not do
//
// This package must not open user files except through a root's
// fsys.Provider, must not decide rules 5 to 8 itself (policy does, from
// the facts given to it), must not format wire protocols (that is
// mcpserver's and cmd/stet's job), and must not keep state outside the
// Workspace value.
package stet
