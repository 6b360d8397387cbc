package policy

import (
	"errors"
	"fmt"
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
	if !r.NoDefaultProtect && glob.CoversFold(DefaultProtect, name) {
		return DefaultProtect, true
	}
	return r.first(r.Protect, name)
}

// Denied reports whether name is hidden from every tool, and the pattern
// that hides it.
func (r Rules) Denied(name string) (pattern string, ok bool) {
	if r.inState(name) {
		return StatePattern, true
	}
	return r.first(r.DenyRead, name)
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

func (r Rules) first(patterns []string, name string) (string, bool) {
	match := glob.Covers
	if r.FoldCase {
		match = glob.CoversFold
	}
	for _, p := range patterns {
		if match(p, name) {
			return p, true
		}
	}
	return "", false
}
