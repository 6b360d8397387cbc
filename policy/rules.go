package policy

import (
	"errors"
	"fmt"

	"github.com/stet-dev/stet/glob"
)

// DefaultProtect is the glob protected unless Rules.NoDefaultProtect is set.
// It covers the workspace's own .git directory and everything in it; a
// nested repository's .git is not covered (add "**/.git/**" for that).
const DefaultProtect = ".git/**"

// Rules holds the path rules of rule 4. Patterns use package glob's syntax
// and match slash-separated names relative to a workspace root.
type Rules struct {
	Protect          []string // --protect: globs no tool may change
	DenyRead         []string // --deny-read: globs hidden from every tool
	NoDefaultProtect bool     // --no-default-protect: drop DefaultProtect
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
// pattern that protects it (DefaultProtect first, then Protect in order).
func (r Rules) Protected(name string) (pattern string, ok bool) {
	if !r.NoDefaultProtect && glob.Match(DefaultProtect, name) {
		return DefaultProtect, true
	}
	return first(r.Protect, name)
}

// Denied reports whether name is hidden from every tool, and the pattern
// that hides it.
func (r Rules) Denied(name string) (pattern string, ok bool) {
	return first(r.DenyRead, name)
}

func first(patterns []string, name string) (string, bool) {
	for _, p := range patterns {
		if glob.Match(p, name) {
			return p, true
		}
	}
	return "", false
}
