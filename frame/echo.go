package frame

import "strings"

// Echoes reports whether answer only echoes text that a tool already
// returned in results. The rule, exactly:
//
//   - Let A be answer with leading and trailing white space (as defined by
//     strings.TrimSpace) removed. If A is empty, Echoes is false: saying
//     nothing repeats nothing.
//   - The candidates are A itself and, when A is a frame (whole or window,
//     as DecodeWindow accepts), its decoded text with white space trimmed
//     the same way, if that is not empty.
//   - The sources are each result as sent and, when a result with white
//     space trimmed is a frame (whole or window), its decoded text.
//
// Echoes is true when some candidate is a substring of some source: the
// answer, or the text the answer frames, already appeared in what a tool
// returned, either verbatim or as the content of a read frame. The match is
// byte-exact; it does not normalize line endings or white space inside the
// text.
func Echoes(results []string, answer string) bool {
	a := strings.TrimSpace(answer)
	if a == "" {
		return false
	}
	candidates := []string{a}
	if _, text, err := DecodeWindow(a); err == nil {
		if t := strings.TrimSpace(string(text)); t != "" && t != a {
			candidates = append(candidates, t)
		}
	}
	for _, r := range results {
		sources := []string{r}
		if _, text, err := DecodeWindow(strings.TrimSpace(r)); err == nil {
			sources = append(sources, string(text))
		}
		for _, s := range sources {
			for _, c := range candidates {
				if strings.Contains(s, c) {
					return true
				}
			}
		}
	}
	return false
}
