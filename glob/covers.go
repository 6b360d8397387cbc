package glob

import "strings"

// Covers reports whether pattern matches name or any directory above it, as
// a .gitignore pattern does: a pattern that matches a directory covers
// everything under it. So "secrets" covers "secrets", "secrets/key.txt" and
// "app/secrets/key.txt"; "a/*.go" covers "a/x.go/y"; "build/" covers
// "build/out/x.o". A malformed pattern covers nothing.
func Covers(pattern, name string) bool {
	segs, anchored, err := compile(pattern)
	if err != nil {
		return false
	}
	return covers(segs, anchored, name)
}

// CoversFold is Covers for a filesystem that folds case: pattern and name
// are compared after Unicode simple lower-casing (strings.ToLower). It is an
// approximation of what case-insensitive filesystems do (APFS and NTFS fold
// a few characters differently), exact for ASCII names.
func CoversFold(pattern, name string) bool {
	return Covers(strings.ToLower(pattern), strings.ToLower(name))
}

func covers(segs []string, anchored bool, name string) bool {
	if !anchored {
		// A slashless pattern matches a base name at any depth, so it
		// covers name when it matches any of its segments.
		for rest := name; ; {
			seg, tail, more := strings.Cut(rest, "/")
			if ok, _ := pathMatch(segs[0], seg); ok {
				return true
			}
			if !more {
				return false
			}
			rest = tail
		}
	}
	parts := strings.Split(name, "/")
	if len(segs) > 0 && segs[len(segs)-1] == "**" {
		// "x/**" already matches everything under x.
		return matchSegments(segs, parts)
	}
	// The name itself or one of its parent directories: segs followed by
	// "**" matches exactly those.
	return matchSegments(append(segs[:len(segs):len(segs)], "**"), parts)
}
