package glob

import "testing"

// TestFoldKeys: the spellings that some filesystem opens as one file share
// a key; names that differ otherwise do not.
func TestFoldKeys(t *testing.T) {
	same := [][2]string{
		{".env", ".ENV"},
		{".env", ".Env"},
		{"caf\u00e9.env", "cafe\u0301.env"}, // NFC, NFD (APFS, HFS+)
		{"CAF\u00c9.ENV", "cafe\u0301.env"},
		{"straße", "STRASSE"},        // full case folding (APFS, ext4 casefold)
		{"\u1e9e", "ss"},             // capital sharp s
		{".git", ".gıt"},             // dotless i: upper case I (NTFS)
		{".git", ".G\u0130T"},        // I with a dot above
		{"kube", "\u212aube"},        // Kelvin sign
		{"secrets", "\u017fecrets"},  // long s
		{"ﬁle", "FILE"},              // ligature
		{"\u00c5", "\u212b"},         // Angstrom sign
		{"σας", "ΣΑΣ"},               // final sigma
		{".git", ".g\u200cit"},       // HFS+ ignores zero-width non-joiner
		{".env", "\ufeff.e\u200dnv"}, // and the BOM, the joiner
		{"a/secrets", "A/Secrets."},  // vfat ignores trailing dots
		{"secrets/key", "secrets.../KEY.."},
		{"Secrets/.ENV", "secrets/.env"},
	}
	for _, c := range same {
		if Fold(c[0]) != Fold(c[1]) {
			t.Errorf("Fold(%q) = %q, Fold(%q) = %q: want one key", c[0], Fold(c[0]), c[1], Fold(c[1]))
		}
	}
	differ := [][2]string{
		{"cafe.env", "caf\u00e9.env"},
		{".env", ".env2"},
		{"a/b", "ab"},
		{".", ""},
		{"x.", "x/"},
	}
	for _, c := range differ {
		if Fold(c[0]) == Fold(c[1]) {
			t.Errorf("Fold(%q) = Fold(%q) = %q: want two keys", c[0], c[1], Fold(c[0]))
		}
	}
	for _, s := range []string{"...", ".", "a/..."} {
		if Fold(s) != s {
			t.Errorf("Fold(%q) = %q: a segment of dots alone is kept", s, Fold(s))
		}
	}
}

// TestFoldMatches: CompileFold matches every name Compile matches and the
// other spellings of those names, also where folding alone would lose one
// (a negated class).
func TestFoldMatches(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{".env", "a/.ENV", true},
		{"caf\u00e9.env", "cafe\u0301.env", true},
		{"cafe\u0301.env", "CAF\u00c9.ENV", true},
		{"**/caf[eé]*", "x/CAFE\u0301.txt", true},
		{"secrets/", "SECRETS./k", true},
		{"[!a-z]*.env", "X.env", true}, // as written; the folded text misses it
		{"[!a-z]*.env", "x.env", false},
		{"[Z-a]", "_", true}, // folded, the range runs backwards
		{"*.", "x", false},   // a pattern's trailing dot is its own
		{"*.", "X.", true},
		{"stra?e", "straße", true},
		{".git", "a/.g\u200bit", false}, // U+200B: not among the ignored
	} {
		if got := MatchFold(c.pattern, c.name); got != c.want {
			t.Errorf("MatchFold(%q, %q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
		if got := CoversFold(c.pattern, c.name); got != c.want {
			t.Errorf("CoversFold(%q, %q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
	}
	if !CoversFold(".env", ".ENV/x") || !CoversFold("/Conf/*.YML", "conf/a.yml/b") {
		t.Error("CoversFold: what lies under a matched directory")
	}
}
