package ignore

// Wildmatch reports whether name matches the gitignore glob pattern, with
// git's wildmatch rules for paths: "*", "?" and classes never match "/", a
// "**" that fills a whole segment matches any number of segments, and a
// backslash makes the next byte literal. Matching is byte-wise.
func Wildmatch(pattern, name string) bool {
	return wildmatch(pattern, 0, name) == wmMatch
}

// Results of wildmatch. The two aborts cut the backtracking as git's do:
// once the name is used up no shorter rest can match (wmAbortAll), and a
// single star that reached a "/" can only be helped by a "**" further out
// (wmAbortToStarStar). They keep a pattern of many stars linear enough.
const (
	wmNoMatch         = 0
	wmMatch           = 1
	wmAbortAll        = -1
	wmAbortToStarStar = -2
)

// wildmatch matches pattern[pi:] against name. The whole pattern is passed
// so that a "**" can see the byte before it.
func wildmatch(pattern string, pi int, name string) int {
	ni := 0
	for pi < len(pattern) {
		c := pattern[pi]
		if ni == len(name) && c != '*' {
			return wmAbortAll
		}
		switch c {
		case '*':
			start := pi
			for pi < len(pattern) && pattern[pi] == '*' {
				pi++
			}
			whole := pi-start >= 2 && (start == 0 || pattern[start-1] == '/') &&
				(pi == len(pattern) || pattern[pi] == '/')
			if whole {
				if pi == len(pattern) {
					return wmMatch // "**" at the end matches everything left
				}
				// "**/": zero or more whole segments.
				rest := pi + 1
				for j := ni; j <= len(name); j++ {
					if j == ni || name[j-1] == '/' {
						if r := wildmatch(pattern, rest, name[j:]); r != wmNoMatch && r != wmAbortToStarStar {
							return r
						}
					}
				}
				return wmNoMatch
			}
			if pi == len(pattern) {
				for j := ni; j < len(name); j++ {
					if name[j] == '/' {
						return wmAbortToStarStar
					}
				}
				return wmMatch
			}
			for j := ni; j <= len(name); j++ {
				if r := wildmatch(pattern, pi, name[j:]); r != wmNoMatch {
					return r
				}
				if j < len(name) && name[j] == '/' {
					return wmAbortToStarStar
				}
			}
			return wmAbortAll
		case '?':
			if name[ni] == '/' {
				return wmNoMatch
			}
			pi++
			ni++
		case '[':
			if name[ni] == '/' {
				return wmNoMatch
			}
			ok, next, valid := matchClass(pattern, pi, name[ni])
			if !valid {
				return wmAbortAll // a malformed class matches nothing
			}
			if !ok {
				return wmNoMatch
			}
			pi = next
			ni++
		case '\\':
			pi++
			if pi >= len(pattern) {
				return wmAbortAll // a trailing backslash matches nothing
			}
			fallthrough
		default:
			if name[ni] != pattern[pi] {
				return wmNoMatch
			}
			pi++
			ni++
		}
	}
	if ni == len(name) {
		return wmMatch
	}
	return wmNoMatch
}

// matchClass matches b against the class starting at pattern[pi] ("[").
// It returns whether b is in the class, the index after the class, and
// whether the class is well formed.
func matchClass(pattern string, pi int, b byte) (ok bool, next int, valid bool) {
	i := pi + 1
	negate := false
	if i < len(pattern) && (pattern[i] == '!' || pattern[i] == '^') {
		negate = true
		i++
	}
	first := true
	var prev int = -1 // the previous literal byte, for a range
	for {
		if i >= len(pattern) {
			return false, 0, false
		}
		c := pattern[i]
		if c == ']' && !first {
			i++
			break
		}
		first = false
		switch {
		case c == '\\':
			i++
			if i >= len(pattern) {
				return false, 0, false
			}
			c = pattern[i]
			if c == b {
				ok = true
			}
			prev = int(c)
			i++
		case c == '-' && prev >= 0 && i+1 < len(pattern) && pattern[i+1] != ']':
			i++
			hi := pattern[i]
			if hi == '\\' {
				i++
				if i >= len(pattern) {
					return false, 0, false
				}
				hi = pattern[i]
			}
			if int(b) >= prev && b <= hi {
				ok = true
			}
			prev = -1
			i++
		case c == '[' && i+1 < len(pattern) && pattern[i+1] == ':':
			end := -1
			for j := i + 2; j+1 < len(pattern); j++ {
				if pattern[j] == ':' && pattern[j+1] == ']' {
					end = j
					break
				}
			}
			if end < 0 {
				// Not a class name: a literal "[".
				if b == '[' {
					ok = true
				}
				prev = '['
				i++
				continue
			}
			in, known := inNamedClass(pattern[i+2:end], b)
			if !known {
				return false, 0, false
			}
			if in {
				ok = true
			}
			prev = -1
			i = end + 2
		default:
			if c == b {
				ok = true
			}
			prev = int(c)
			i++
		}
	}
	return ok != negate, i, true
}

func inNamedClass(name string, b byte) (in, known bool) {
	isUpper := 'A' <= b && b <= 'Z'
	isLower := 'a' <= b && b <= 'z'
	isDigit := '0' <= b && b <= '9'
	switch name {
	case "alnum":
		return isUpper || isLower || isDigit, true
	case "alpha":
		return isUpper || isLower, true
	case "blank":
		return b == ' ' || b == '\t', true
	case "cntrl":
		return b < 0x20 || b == 0x7f, true
	case "digit":
		return isDigit, true
	case "graph":
		return b > 0x20 && b < 0x7f, true
	case "lower":
		return isLower, true
	case "print":
		return b >= 0x20 && b < 0x7f, true
	case "punct":
		return b > 0x20 && b < 0x7f && !isUpper && !isLower && !isDigit, true
	case "space":
		return b == ' ' || (b >= '\t' && b <= '\r'), true
	case "upper":
		return isUpper, true
	case "xdigit":
		return isDigit || ('a' <= b && b <= 'f') || ('A' <= b && b <= 'F'), true
	}
	return false, false
}
