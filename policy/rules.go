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
// workspace's repository, nested repositories and submodules alike). Like
// every rule it is compared in every spelling a filesystem may take for
// the name (glob.CompileFold), so ".GIT/config" is protected.
const DefaultProtect = ".git"

// StatePattern is the pattern named when a path is refused because it lies
// in stet's own state directory (Rules.State).
const StatePattern = "stet's state directory"

// Rules holds the path rules of rule 4 for one workspace root. Patterns use
// package glob's syntax with gitignore semantics (glob.Pattern.Covers):
// they match slash-separated names relative to the root, a pattern without
// a slash matches that name at any depth, and a pattern that matches a
// directory covers everything under it.
//
// Names are compared as written and in every spelling a filesystem may
// take for the same name (glob.CompileFold, glob.Fold): letter case,
// Unicode normalization, the code points HFS+ ignores, trailing dots. That
// holds on every filesystem, not only where one is known to fold: whether
// a volume folds cannot be told reliably from a name (it changes per
// directory with ext4's casefold and on Windows, per mount with FAT, SMB,
// FUSE or a case-insensitive APFS volume inside a tree), and a wrong guess
// would hide nothing. On a volume that tells ".ENV" from ".env", a rule on
// one covers the other too: a refusal too many, never a leak.
type Rules struct {
	Protect          []string // --protect: globs no tool may change
	DenyRead         []string // --deny-read: globs hidden from every tool
	NoDefaultProtect bool     // --no-default-protect: drop DefaultProtect

	// State lists root-relative directories that hold stet's own state (the
	// journal). They and everything under them are denied and protected
	// whatever the other fields say.
	State []string

	// compiled holds Protect and DenyRead compiled once (Compiled); nil:
	// each check compiles the patterns it meets.
	compiled *compiledRules
}

// compiledRules is Protect and DenyRead compiled, in order.
type compiledRules struct {
	protectSrc, deniedSrc []string // the patterns they were compiled from
	protect, denied       []*glob.Pattern
}

// defaultProtect is DefaultProtect compiled (read only).
var defaultProtect, _ = glob.CompileFold(DefaultProtect)

// Compiled returns r with its patterns compiled once, so that the checks of
// a walk over many names do not compile every pattern for every name. Call
// it after the fields are final: a later change of Protect or DenyRead is
// not seen by the compiled patterns (the checks then compile again, as for
// Rules never compiled). A malformed pattern matches nothing, as it does
// uncompiled; Validate reports it.
func (r Rules) Compiled() Rules {
	c := &compiledRules{protectSrc: slices.Clone(r.Protect), deniedSrc: slices.Clone(r.DenyRead)}
	for _, p := range r.Protect {
		cp, _ := glob.CompileFold(p)
		c.protect = append(c.protect, cp)
	}
	for _, p := range r.DenyRead {
		cp, _ := glob.CompileFold(p)
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
	key := glob.Fold(name) // once for every check
	if r.inState(name, key) {
		return StatePattern, true
	}
	if !r.NoDefaultProtect && defaultProtect.CoversKey(name, key) {
		return DefaultProtect, true
	}
	var compiled []*glob.Pattern
	if c := r.compiled; c != nil && slices.Equal(c.protectSrc, r.Protect) {
		compiled = c.protect
	}
	return first(r.Protect, compiled, name, key)
}

// Denied reports whether name is hidden from every tool, and the pattern
// that hides it.
func (r Rules) Denied(name string) (pattern string, ok bool) {
	if !r.HasDenied() {
		return "", false
	}
	key := glob.Fold(name)
	if r.inState(name, key) {
		return StatePattern, true
	}
	var compiled []*glob.Pattern
	if c := r.compiled; c != nil && slices.Equal(c.deniedSrc, r.DenyRead) {
		compiled = c.denied
	}
	return first(r.DenyRead, compiled, name, key)
}

// HasDenied reports whether any name at all can be denied: a caller may
// skip resolving paths when it cannot.
func (r Rules) HasDenied() bool { return len(r.DenyRead) > 0 || len(r.State) > 0 }

// inState reports whether name, whose key is key (glob.Fold), lies in a
// State directory, as written or in another spelling of the same names.
func (r Rules) inState(name, key string) bool {
	under := func(d, n string) bool { return d == "." || n == d || strings.HasPrefix(n, d+"/") }
	for _, d := range r.State {
		if under(d, name) || under(glob.Fold(d), key) {
			return true
		}
	}
	return false
}

// first returns the first of patterns that covers name, whose key is key
// (glob.Fold); compiled, when not nil, holds them compiled, in the same
// order (nil for a malformed one, which covers nothing).
func first(patterns []string, compiled []*glob.Pattern, name, key string) (string, bool) {
	for i, p := range patterns {
		if compiled != nil {
			if compiled[i] != nil && compiled[i].CoversKey(name, key) {
				return p, true
			}
			continue
		}
		if glob.CoversFold(p, name) {
			return p, true
		}
	}
	return "", false
}
