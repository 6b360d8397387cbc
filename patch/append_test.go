package patch

import (
	"errors"
	"testing"
)

// TestAppendThenChange: a Codex chunk appended at the end (a bare "@@" of
// only added lines) does not move where the chunks after it are looked
// for, as Codex places it (its compute_replacements leaves its line index
// where it was for a chunk with no old lines): a change above it still
// lands, and the appended lines follow every change at the end. The first
// case is Codex's own unit test test_pure_addition_chunk_followed_by_removal
// (codex-rs/apply-patch); the others are derived from the same rule. Each
// want is the file Codex leaves, except that stet keeps a missing final
// newline missing (scenario 014) and gives the lines it adds to a CRLF
// file "\r\n" (docs/patch.md).
func TestAppendThenChange(t *testing.T) {
	const begin, end = "*** Begin Patch\n*** Update File: f\n", "*** End Patch\n"
	for _, tc := range []struct {
		name, text, body, want string
	}{
		{"codex unit test", "line1\nline2\nline3\n",
			"@@\n+after-context\n+second-line\n@@\n line1\n-line2\n-line3\n+line2-replacement\n",
			"line1\nline2-replacement\nafter-context\nsecond-line\n"},
		{"change of the last line after it", "a\nb\nc\n", "@@\n+x\n@@\n b\n-c\n+C\n", "a\nb\nC\nx\n"},
		{"End of File chunk after it", "a\nb\nc\n", "@@\n+x\n@@\n-c\n+C\n*** End of File\n", "a\nb\nC\nx\n"},
		{"appends around a change keep their order", "a\nb\n", "@@\n+x\n@@\n-a\n+A\n@@\n+y\n", "A\nb\nx\ny\n"},
		{"first chunk without @@", "a\nb\n", "+x\n@@\n-a\n+A\n", "A\nb\nx\n"},
		{"no final newline", "a\nb", "@@\n+x\n@@\n-b\n+B\n", "a\nB\nx"},
		{"CRLF file", "a\r\nb\r\n", "@@\n+x\n@@\n-a\n+A\n", "A\r\nb\r\nx\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Apply([]byte(tc.text), hunksOf(t, begin+tc.body+end))
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			checkRegions(t, []byte(tc.text), a)
			if string(a.Text) != tc.want {
				t.Errorf("Apply = %q, want %q", a.Text, tc.want)
			}
		})
	}
}

// TestAppendKeepsOrderOfChanges: only the appended chunk is passed over; a
// chunk after it is still looked for below the change before it, as Codex
// looks for it, and a unified hunk with a line number is placed as before.
func TestAppendKeepsOrderOfChanges(t *testing.T) {
	hunks := hunksOf(t, "*** Begin Patch\n*** Update File: f\n@@\n-b\n+B\n@@\n+x\n@@\n-a\n+A\n*** End Patch\n")
	_, err := Apply([]byte("a\nb\n"), hunks)
	if !errors.Is(err, ErrNoMatch) {
		t.Fatalf("Apply = %v, want no_match: the third chunk lies above the first", err)
	}
	// An insertion with an "@@" anchor is no append: it stays where its
	// anchor puts it and the chunk after it is looked for below it.
	hunks = hunksOf(t, "*** Begin Patch\n*** Update File: f\n@@ b\n+x\n@@\n-a\n+A\n*** End Patch\n")
	if _, err := Apply([]byte("a\nb\n"), hunks); !errors.Is(err, ErrNoMatch) {
		t.Fatalf("Apply = %v, want no_match below the anchored insertion", err)
	}
}
