// Package engine is what every stet tool stands on: a user's path mapped
// into a root and held (target.go), the rules asked on every name it goes
// by (gate.go, rootrules.go, scope.go; rules 5 to 8 asked of policy.Decide
// in ask.go), the refusals and what they show (refusal.go, shown.go,
// textcheck.go), the one commit sequence every change goes through
// (sequence.go, whose head lists the steps; plan.go, a plan per kind of
// change; commit.go, the change and the steps' helpers; intent.go,
// write-ahead and recovery; keep.go, replaced bytes handed to the object
// store; revert.go, the change that takes a receipt back; lock.go, every
// per-file lock in one order; steptime.go, the steps' timer), and a
// session's state, rebuilt from the journal (session.go, snapshot.go,
// inputs.go). workspace.go opens the roots, the journal and the rules.
//
// Package stet, above it, keeps the handles (Workspace, Session), one
// file per tool, and the table of tools; each tool plans a Change and
// hands it to Session.Commit or Session.CommitSeq. What only a tool can do
// (the listing a refusal shows) the facade gives at OpenWorkspace, as a
// Face.
//
// # What it must not do
//
// It must not import package stet or know any tool: a reference upward is
// a compile error, which is the point of the package. It must not open
// user files except through a root's fsys.Provider, must not decide rules
// 5 to 8 itself (policy does, from the facts given to it), must not format
// wire protocols, and must not keep state outside the Workspace value.
package engine
