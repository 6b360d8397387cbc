package ship

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRootsDenied: the names a journal line may use for a file (a display
// path, an absolute path inside a root, a "<root>:<path>" key) are each
// asked of the deny-read rules of the root they fall in, and of the state
// directory when it lies inside one; a name in no root hides nothing.
func TestRootsDenied(t *testing.T) {
	base := t.TempDir()
	one, two := filepath.Join(base, "one"), filepath.Join(base, "two")
	r := newRoots([]string{one, two}, filepath.Join(one, ".state"), []string{"secret/**"})
	cases := []struct {
		name string
		want bool
	}{
		{"secret/key", true},
		{"public/key", false},
		{"0:secret/key", true},
		{"1:secret/key", true},
		{"1:public/key", false},
		{"2:secret/key", false}, // no third root: a name, not a key
		{filepath.ToSlash(filepath.Join(two, "secret", "key")), true},
		{filepath.ToSlash(filepath.Join(two, "public", "key")), false},
		{filepath.ToSlash(filepath.Join(base, "secret", "key")), false}, // in no root
		{".state/journal.jsonl", true},
		{"0:.state/journal.jsonl", true},
		{"1:.state/journal.jsonl", false}, // the state directory is in root 0 only
	}
	for _, c := range cases {
		if got := r.denied(c.name); got != c.want {
			t.Errorf("denied(%q) = %v, want %v", c.name, got, c.want)
		}
	}
	// A state directory outside every root adds no rule.
	out := newRoots([]string{one}, filepath.Join(base, "state"), nil)
	if out.denied("state/journal.jsonl") || out.denied("../state/journal.jsonl") {
		t.Error("a state directory outside the root hides names inside it")
	}
	// Without roots nothing is a workspace file.
	if none := newRoots(nil, "", []string{"**"}); none.denied("secret/key") {
		t.Error("a name is hidden with no root to place it in")
	}
}

// TestRootsReadTooLarge: a file over the bound is seen to exist, but its
// bytes are not read (so the review says it could not be read here).
func TestRootsReadTooLarge(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat("x", maxFileBytes+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "small.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRoots([]string{dir}, t.TempDir(), nil)
	big, hidden := r.read("big.txt")
	if hidden || !big.exists || big.b != nil {
		t.Errorf("over the bound: %+v hidden=%v, want it seen and not read", big, hidden)
	}
	small, _ := r.read("small.txt")
	if string(small.b) != "x\n" {
		t.Errorf("a small file read %q", small.b)
	}
}
