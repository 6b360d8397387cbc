package policy

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/stet-dev/stet/glob"
)

// DefaultProtect is the pattern protected unless Rules.NoDefaultProtect is
// set: every entry named .git at any depth and everything under it (the
// workspace's repository, nested repositories and submodules alike). It is
// always compared case-insensitively, whatever the filesystem does, so
// ".GIT/config" is protected on a filesystem that folds case and costs
// nothing where names are case-sensitive.
const DefaultProtect = ".git"

// StatePattern is the pattern named when a path is refused because it lies
// in stet's own state directory (Rules.State).
const StatePattern = "stet's state directory"

// Rules holds the path rules of rule 4 for one workspace root. Patterns use
// package glob's syntax with gitignore semantics (glob.Covers): they match
// slash-separated names relative to the root, a pattern without a slash
// matches that name at any depth, and a pattern that matches a directory
// covers everything under it.
type Rules struct {
	Protect          []string // --protect: globs no tool may change
	DenyRead         []string // --deny-read: globs hidden from every tool
	NoDefaultProtect bool     // --no-default-protect: drop DefaultProtect

	// FoldCase compares names case-insensitively: set it for a root whose
	// filesystem folds case, where "Secrets/KEY" names "secrets/key".
	FoldCase bool
	// State lists root-relative directories that hold stet's own state (the
	// journal). They and everything under them are denied and protected
	// whatever the other fields say.
	State []string

	// compiled holds Protect and DenyRead compiled once (Compiled); nil:
	// each check compiles the patterns it meets.
	compiled *compiledRules
}

// compiledRules is Protect and DenyRead compiled, in order, for FoldCase.
type compiledRules struct {
	fold                  bool
	protectSrc, deniedSrc []string // the patterns they were compiled from
	protect, denied       []*glob.Pattern
}

// defaultProtect is DefaultProtect compiled, case-insensitively (read
// only).
var defaultProtect, _ = glob.CompileFold(DefaultProtect)

// Compiled returns r with its patterns compiled once, so that the checks of
// a walk over many names do not compile every pattern for every name. Call
// it after the fields are final: a later change of Protect, DenyRead or
// FoldCase is not seen by the compiled patterns (the checks then compile
// again, as for Rules never compiled). A malformed pattern matches nothing,
// as it does uncompiled; Validate reports it.
func (r Rules) Compiled() Rules {
	compile := glob.Compile
	if r.FoldCase {
		compile = glob.CompileFold
	}
	c := &compiledRules{fold: r.FoldCase, protectSrc: slices.Clone(r.Protect), deniedSrc: slices.Clone(r.DenyRead)}
	for _, p := range r.Protect {
		cp, _ := compile(p)
		c.protect = append(c.protect, cp)
	}
	for _, p := range r.DenyRead {
		cp, _ := compile(p)
		c.denied = append(c.denied, cp)
	}
	r.compiled = c
	return r
}

// Validate checks every pattern and reports each malformed one by flag and
// index ("protect[1]: glob ...").
func (r Rules) Validate() error {
	var errs []error
	for i, p := range r.Protect {
		if err := glob.Valid(p); err != nil {
			errs = append(errs, fmt.Errorf("protect[%d]: %w", i, err))
		}
	}
	for i, p := range r.DenyRead {
		if err := glob.Valid(p); err != nil {
			errs = append(errs, fmt.Errorf("deny-read[%d]: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

// Protected reports whether name may not be changed by any tool, and the
// pattern that protects it (StatePattern first, then DefaultProtect, then
// Protect in order).
func (r Rules) Protected(name string) (pattern string, ok bool) {
	if r.inState(name) {
		return StatePattern, true
	}
	if !r.NoDefaultProtect && defaultProtect.Covers(name) {
		return DefaultProtect, true
	}
	var compiled []*glob.Pattern
	if c := r.compiled; c != nil && c.fold == r.FoldCase && slices.Equal(c.protectSrc, r.Protect) {
		compiled = c.protect
	}
	return r.first(r.Protect, compiled, name)
}

// Denied reports whether name is hidden from every tool, and the pattern
// that hides it.
func (r Rules) Denied(name string) (pattern string, ok bool) {
	if r.inState(name) {
		return StatePattern, true
	}
	var compiled []*glob.Pattern
	if c := r.compiled; c != nil && c.fold == r.FoldCase && slices.Equal(c.deniedSrc, r.DenyRead) {
		compiled = c.denied
	}
	return r.first(r.DenyRead, compiled, name)
}

// HasDenied reports whether any name at all can be denied: a caller may
// skip resolving paths when it cannot.
func (r Rules) HasDenied() bool { return len(r.DenyRead) > 0 || len(r.State) > 0 }

func (r Rules) inState(name string) bool {
	for _, d := range r.State {
		if r.FoldCase {
			d, name = strings.ToLower(d), strings.ToLower(name)
		}
		if d == "." || name == d || strings.HasPrefix(name, d+"/") {
			return true
		}
	}
	return false
}

// first returns the first of patterns that covers name; compiled, when
// not nil, holds them compiled, in the same order (nil for a malformed
// one, which covers nothing).
func (r Rules) first(patterns []string, compiled []*glob.Pattern, name string) (string, bool) {
	match := glob.Covers
	if r.FoldCase {
		match = glob.CoversFold
	}
	for i, p := range patterns {
		if compiled != nil {
			if compiled[i] != nil && compiled[i].Covers(name) {
				return p, true
			}
			continue
		}
		if match(p, name) {
			return p, true
		}
	}
	return "", false
}
