// Package stet is the file layer an AI coding agent stands on: read, edit,
// write, patch, list, find, grep, mkdir, move, delete and undo over one or
// more workspace roots, guarded so that the user's data is never lost.
//
// Open a Workspace over its roots, take a Session per agent, and call one
// method per tool. Every path is confined to the roots (package fsys/local);
// every mutation passes the policy gate of SPEC section 4 in order
// (arguments, confinement, effects, protected paths, observation, freshness,
// binding, input guard, warn and save), lands through one commit sequence
// (temp file, fsync, compare-and-swap, directory fsync), is read back and
// verified against its receipt, and is recorded in the journal, from which
// undo restores exact bytes.
//
// A refusal is returned as a *Refusal error: a result, not a crash. Its
// Message names the file, what was seen and the one next step; its Kind is
// stable API.
//
// This package must not open user files except through a root's
// fsys.Provider, must not format wire protocols (that is mcpserver's and
// cmd/stet's job), and must not keep state outside the Workspace value.
package stet
