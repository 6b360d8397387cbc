package policy

import (
	"errors"
	"fmt"
)

// ErrUnknownMode is wrapped by ParseEffects and ParseBinding errors.
var ErrUnknownMode = errors.New("unknown mode")

// Effects is the effects mode of a workspace (rule 3).
type Effects string

const (
	// ReadOnly refuses every mutating tool.
	ReadOnly Effects = "read-only"
	// WorkspaceWrite lets mutating tools change files inside the workspace.
	WorkspaceWrite Effects = "workspace-write"
	// DefaultEffects is the mode when none is given.
	DefaultEffects = WorkspaceWrite
)

// Writable reports whether mutating tools may run in mode e.
func (e Effects) Writable() bool { return e == WorkspaceWrite }

// ParseEffects parses an --effects value (or STET_EFFECTS). Only the exact
// values are accepted, so a caller that validates with ParseEffects may
// compare the raw string with ReadOnly; the empty string means
// DefaultEffects.
func ParseEffects(s string) (Effects, error) {
	switch s {
	case "":
		return DefaultEffects, nil
	case string(ReadOnly):
		return ReadOnly, nil
	case string(WorkspaceWrite):
		return WorkspaceWrite, nil
	}
	return "", fmt.Errorf("effects %q (want read-only or workspace-write): %w", s, ErrUnknownMode)
}

// Binding is the binding mode of rule 7: what a session must have seen of
// a file before it may change it.
type Binding string

const (
	// BindSeen needs every replaced byte range inside the ranges returned
	// to the model at the file's current version, and the whole file for a
	// whole-file replace.
	BindSeen Binding = "seen"
	// BindRead accepts any observation of the current version.
	BindRead Binding = "read"
	// BindFull needs one whole-file read of the current version.
	BindFull Binding = "full"
	// DefaultBinding is the mode when none is given.
	DefaultBinding = BindSeen
)

// ParseBinding parses a --binding value. Only the exact values are
// accepted; the empty string means DefaultBinding.
func ParseBinding(s string) (Binding, error) {
	switch s {
	case "":
		return DefaultBinding, nil
	case string(BindSeen):
		return BindSeen, nil
	case string(BindRead):
		return BindRead, nil
	case string(BindFull):
		return BindFull, nil
	}
	return "", fmt.Errorf("binding %q (want seen, read or full): %w", s, ErrUnknownMode)
}
