package ignore

// Wildmatch reports whether name matches the gitignore glob pattern, with
// git's wildmatch rules for paths: "*", "?" and classes never match "/", a
// "**" that fills a whole segment matches any number of segments, and a
// backslash makes the next byte literal. Matching is byte-wise.
func Wildmatch(pattern, name string) bool {
	return wildmatch(pattern, 0, name)
}

// wildmatch matches pattern[pi:] against name. The whole pattern is passed
// so that a "**" can see the byte before it.
func wildmatch(pattern string, pi int, name string) bool {
	ni := 0
	for pi < len(pattern) {
		c := pattern[pi]
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
					return true // "**" at the end matches everything left
				}
				// "**/": zero or more whole segments.
				rest := pi + 1
				for j := ni; j <= len(name); j++ {
					if j == ni || name[j-1] == '/' {
						if wildmatch(pattern, rest, name[j:]) {
							return true
						}
					}
				}
				return false
			}
			if pi == len(pattern) {
				for j := ni; j < len(name); j++ {
					if name[j] == '/' {
						return false
					}
				}
				return true
			}
			for j := ni; j <= len(name); j++ {
				if wildmatch(pattern, pi, name[j:]) {
					return true
				}
				if j < len(name) && name[j] == '/' {
					return false
				}
			}
			return false
		case '?':
			if ni >= len(name) || name[ni] == '/' {
				return false
			}
			pi++
			ni++
		case '[':
			if ni >= len(name) || name[ni] == '/' {
				return false
			}
			ok, next, valid := matchClass(pattern, pi, name[ni])
			if !valid {
				return false
			}
			if !ok {
				return false
			}
			pi = next
			ni++
		case '\\':
			pi++
			if pi >= len(pattern) {
				return false // a trailing backslash matches nothing
			}
			fallthrough
		default:
			if ni >= len(name) || name[ni] != pattern[pi] {
				return false
			}
			pi++
			ni++
		}
	}
	return ni == len(name)
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
