package glob

import "strings"

// CoversFold reports whether pattern, compiled by CompileFold, covers name
// (see Pattern.Covers). A malformed pattern covers nothing.
func CoversFold(pattern, name string) bool {
	p, err := CompileFold(pattern)
	return err == nil && p.Covers(name)
}

// Covers reports whether p matches name or any directory above it, as a
// .gitignore pattern does: a pattern that matches a directory covers
// everything under it. So "secrets" covers "secrets", "secrets/key.txt" and
// "app/secrets/key.txt"; "a/*.go" covers "a/x.go/y"; "build/" covers
// "build/out/x.o".
func (p *Pattern) Covers(name string) bool {
	if p.covered(name) {
		return true
	}
	return p.folded != nil && p.coversKey(name, Fold(name))
}

// CoversKey is Covers for a name whose key the caller has already
// computed, to check many patterns against one name: key must be
// Fold(name).
func (p *Pattern) CoversKey(name, key string) bool {
	return p.covered(name) || p.coversKey(name, key)
}

// coversKey reports whether p's folded text covers key, the key of name;
// false without a folded text, or when it would only match name again.
func (p *Pattern) coversKey(name, key string) bool {
	if p.folded == nil || p.folded == p && key == name {
		return false
	}
	return p.folded.covered(key)
}

// covered is Covers for the pattern as written.
func (p *Pattern) covered(name string) bool {
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
	// followed by "/**" matches exactly those ("x/**" matches x too),
	// but for the selves (see Pattern).
	return matchAny(p.covers, name) || matchAny(p.selves, name)
}
