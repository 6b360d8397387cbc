package glob

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Fold returns the key of a slash-separated name under which the names a
// filesystem may take for one another are equal: "Secrets/.ENV" and
// "secrets/.env", "cafe\u0301.env" and "caf\u00e9.env". It is meant to be
// coarser than every filesystem stet may run on, so that two names one of
// them opens as the same file always get the same key; names that no
// filesystem confuses may share one too (a rule compared on keys then
// refuses a little more than it names, never less). The key:
//
//   - is in one Unicode normal form (APFS and HFS+ are insensitive to
//     normalization, and HFS+ stores names decomposed): canonical
//     composition (NFC) of the name after the steps below, which run on
//     its canonical decomposition (NFD);
//   - has letter case folded as Unicode full case folding does (APFS,
//     ext4 and f2fs casefold: "ß" and "SS" are one name, "ﬁ" and "fi"),
//     then each letter to the lower case of its upper case (NTFS, exFAT,
//     ZFS compare upper cases: "ı" and "i" are one name there), and "i"
//     followed by a combining dot above as "i";
//   - leaves out the code points HFS+ ignores in names (zero-width
//     joiners and non-joiners, direction marks and embeddings, U+206A to
//     U+206F, the byte-order mark), as git does for ".git";
//   - drops the trailing dots of each segment that has other characters
//     ("secrets." is "secrets": Linux's vfat ignores them; Windows does too,
//     where such names are refused before any rule runs).
//
// Slashes are kept, so a segment's key is the key of the segment alone.
// An ASCII name costs a lower-casing; Fold is safe for concurrent use.
func Fold(name string) string { return trimDots(foldText(name)) }

// foldText is Fold without dropping trailing dots: the form a pattern's
// text takes for CompileFold (a trailing "." of a pattern is part of its
// syntax: "*." is not "*").
func foldText(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	s = cases.Fold().String(norm.NFD.String(s)) // a Caser is not safe for concurrent use: one per call
	s = strings.Map(func(r rune) rune {
		if ignorable(r) {
			return -1
		}
		return unicode.ToLower(unicode.ToUpper(r))
	}, s)
	s = strings.ReplaceAll(s, "i\u0307", "i")
	return norm.NFC.String(s)
}

// ignorable reports whether HFS+ ignores r in names (the list git checks
// in is_hfs_dotgit).
func ignorable(r rune) bool {
	switch {
	case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
		return true
	}
	return false
}

// trimDots drops the trailing dots of each segment of name that has other
// characters.
func trimDots(name string) string {
	if !strings.HasSuffix(name, ".") && !strings.Contains(name, "./") {
		return name
	}
	segs := strings.Split(name, "/")
	for i, s := range segs {
		if t := strings.TrimRight(s, "."); t != "" {
			segs[i] = t
		}
	}
	return strings.Join(segs, "/")
}
