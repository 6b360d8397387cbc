package glob

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// ErrBadPattern is wrapped by every error Valid returns.
var ErrBadPattern = errors.New("bad glob pattern")

// Match reports whether name matches pattern (see the package
// documentation for the syntax). A malformed pattern matches nothing; use
// Valid to report it.
func Match(pattern, name string) bool {
	segs, anchored, err := compile(pattern)
	if err != nil {
		return false
	}
	if !anchored {
		base := name
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			base = name[i+1:]
		}
		ok, _ := pathMatch(segs[0], base)
		return ok
	}
	return matchSegments(segs, strings.Split(name, "/"))
}

// Valid returns nil when pattern is a well-formed glob, or an error
// wrapping ErrBadPattern that says what is wrong with it.
func Valid(pattern string) error {
	_, _, err := compile(pattern)
	return err
}

// compile splits pattern into segments. anchored is false for a pattern
// without any "/", which matches base names at any depth.
func compile(pattern string) (segs []string, anchored bool, err error) {
	bad := func(why string) error {
		return fmt.Errorf("glob %q: %s: %w", pattern, why, ErrBadPattern)
	}
	if pattern == "" {
		return nil, false, bad("empty pattern")
	}
	if strings.IndexByte(pattern, 0) >= 0 {
		return nil, false, bad("NUL byte")
	}
	p := pattern
	if !strings.Contains(p, "/") {
		if _, err := path.Match(p, ""); err != nil {
			return nil, false, bad("malformed segment")
		}
		return []string{p}, false, nil
	}
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return nil, false, bad("matches only the root")
	}
	if strings.HasSuffix(p, "/") {
		p += "**"
	}
	segs = strings.Split(p, "/")
	for _, s := range segs {
		switch {
		case s == "":
			return nil, false, bad("empty segment")
		case s == "." || s == "..":
			return nil, false, bad(fmt.Sprintf("%q segment", s))
		case s == "**":
			continue
		}
		if _, err := path.Match(s, ""); err != nil {
			// Splitting at every "/" leaves an unterminated class or a
			// trailing backslash wherever a "/" sat inside a class or
			// after a backslash, so this catches those too.
			return nil, false, bad(fmt.Sprintf("malformed segment %q", s))
		}
	}
	return segs, true, nil
}

// matchSegments matches pattern segments against name segments. ok[j]
// records whether pat[i:] matches name[j:], filled from the end, so a
// pattern with many "**" stays O(len(pat)·len(name)).
func matchSegments(pat, name []string) bool {
	n := len(name)
	next := make([]bool, n+1)
	cur := make([]bool, n+1)
	next[n] = true // the empty pattern matches only the empty rest
	for i := len(pat) - 1; i >= 0; i-- {
		if pat[i] == "**" {
			cur[n] = next[n]
			for j := n - 1; j >= 0; j-- {
				cur[j] = next[j] || cur[j+1]
			}
		} else {
			cur[n] = false
			for j := n - 1; j >= 0; j-- {
				if !next[j+1] {
					cur[j] = false
					continue
				}
				ok, _ := path.Match(pat[i], name[j])
				cur[j] = ok
			}
		}
		next, cur = cur, next
	}
	return next[0]
}

// pathMatch is path.Match for one segment.
func pathMatch(pattern, seg string) (bool, error) { return path.Match(pattern, seg) }
