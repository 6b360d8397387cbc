package tools

import "strings"

// maxSuggestKey bounds the keys Nearest compares: a longer key is not a
// misspelling of an argument name.
const maxSuggestKey = 64

// Nearest returns the entry of known closest to key, or "" when none is
// close enough to be a plausible misspelling.
//
// Names are compared case-insensitively with '_', '-', '.' and spaces
// removed, so "oldString", "old-string" and "OLD_STRING" all name
// "old_string". Otherwise the best candidate is the one with the smallest
// edit distance (Levenshtein with adjacent transpositions) when that
// distance is at most a third of the candidate's length (at least 1); failing
// that, a candidate that contains key, or is contained in it, at 3 or more
// characters ("file_path" finds "path"). Ties go to the earlier entry.
func Nearest(key string, known []string) string {
	if key == "" || len(key) > maxSuggestKey {
		return ""
	}
	nk := normalizeName(key)
	if nk == "" {
		return ""
	}
	best, bestDist := "", -1
	for _, k := range known {
		kn := normalizeName(k)
		if kn == nk {
			return k
		}
		d := editDistance(nk, kn)
		if d <= max(1, len(kn)/3) && (bestDist < 0 || d < bestDist) {
			best, bestDist = k, d
		}
	}
	if best != "" {
		return best
	}
	bestLen := 0
	for _, k := range known {
		kn := normalizeName(k)
		contains := (len(nk) >= 3 && strings.Contains(kn, nk)) ||
			(len(kn) >= 3 && strings.Contains(nk, kn))
		if contains && len(kn) > bestLen {
			best, bestLen = k, len(kn)
		}
	}
	return best
}

func normalizeName(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c == '-' || c == '.' || c == ' ':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and transpositions of adjacent bytes
// each cost 1.
func editDistance(a, b string) int {
	// Three rows: two back (for transpositions), previous, current.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// aliasesOf returns the stet names a model probably meant by a name from
// another tool set (file_path, old_str, text, ...), normalized by
// normalizeName, in order of preference; the first one the tool accepts is
// suggested.
func aliasesOf(normalized string) []string {
	switch normalized {
	case "file", "filename", "filepath", "targetfile", "dir", "directory", "folder":
		return []string{"path"}
	case "source", "src", "oldpath", "sourcepath":
		return []string{"from"}
	case "destination", "dest", "dst", "newpath", "destpath":
		return []string{"to"}
	case "target":
		return []string{"to", "path"}
	case "text", "data", "body", "filetext":
		return []string{"content"}
	case "start", "startline", "line", "fromline", "linenumber":
		return []string{"offset"}
	case "count", "max", "maxlines", "lines", "numlines", "maxresults", "n":
		return []string{"limit"}
	case "search", "find":
		return []string{"old_string", "pattern"}
	case "original", "oldtext":
		return []string{"old_string"}
	case "replace", "replacement", "newtext", "updated":
		return []string{"new_string"}
	case "changes", "replacements", "operations":
		return []string{"edits"}
	case "regex", "regexp", "query":
		return []string{"pattern"}
	case "glob", "filepattern":
		return []string{"glob", "pattern"}
	case "include":
		return []string{"glob"}
	case "force":
		return []string{"overwrite"}
	case "recursive":
		return []string{"depth"}
	case "diff", "input":
		return []string{"patch"}
	case "version", "sha", "sha256", "hash":
		return []string{"expected_version"}
	case "preview":
		return []string{"dry_run"}
	case "contextlines", "linesofcontext":
		return []string{"context"}
	}
	return nil
}

// suggest proposes the argument a model probably meant by key: a known alias
// first, then the nearest name.
func suggest(key string, known []string) string {
	if len(key) <= maxSuggestKey {
		for _, a := range aliasesOf(normalizeName(key)) {
			for _, k := range known {
				if k == a {
					return k
				}
			}
		}
	}
	return Nearest(key, known)
}
