package glob

import "strings"

// Covers reports whether pattern matches name or any directory above it, as
// a .gitignore pattern does: a pattern that matches a directory covers
// everything under it. So "secrets" covers "secrets", "secrets/key.txt" and
// "app/secrets/key.txt"; "a/*.go" covers "a/x.go/y"; "build/" covers
// "build/out/x.o". A malformed pattern covers nothing.
func Covers(pattern, name string) bool {
	p, err := Compile(pattern)
	return err == nil && p.Covers(name)
}

// CoversFold is Covers for a filesystem that folds case (see CompileFold).
func CoversFold(pattern, name string) bool {
	p, err := CompileFold(pattern)
	return err == nil && p.Covers(name)
}

// Covers reports whether p matches name or any directory above it (see the
// function Covers).
func (p *Pattern) Covers(name string) bool {
	if p.fold {
		name = strings.ToLower(name)
	}
	if !p.anchored {
		// A slashless pattern matches a base name at any depth, so it
		// covers name when it matches any of its segments.
		for rest := name; ; {
			seg, tail, more := strings.Cut(rest, "/")
			if matchAny(p.alts, seg) {
				return true
			}
			if !more {
				return false
			}
			rest = tail
		}
	}
	// The name itself or one of its parent directories: the pattern
	// followed by "/**" matches exactly those ("x/**" matches x too).
	return matchAny(p.covers, name)
}
