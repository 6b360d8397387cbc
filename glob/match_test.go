package glob

// Match, MatchFold and Covers check pattern on every call, for tests that
// try one pattern on one name: a malformed pattern matches nothing.

func Match(pattern, name string) bool {
	p, err := Compile(pattern)
	return err == nil && p.Match(name)
}

func MatchFold(pattern, name string) bool {
	p, err := CompileFold(pattern)
	return err == nil && p.Match(name)
}

func Covers(pattern, name string) bool {
	p, err := Compile(pattern)
	return err == nil && p.Covers(name)
}
