package golden

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// File is one section of an archive.
type File struct {
	Name string
	Data []byte
}

// Archive is a txtar archive.
type Archive struct {
	Comment []byte
	Files   []File
}

// Format returns the archive's bytes. Every section ends in a newline.
func (a *Archive) Format() []byte {
	var b bytes.Buffer
	b.Write(fixNL(a.Comment))
	for _, f := range a.Files {
		fmt.Fprintf(&b, "-- %s --\n", f.Name)
		b.Write(fixNL(f.Data))
	}
	return b.Bytes()
}

func fixNL(b []byte) []byte {
	if len(b) == 0 || b[len(b)-1] == '\n' {
		return b
	}
	return append(append([]byte(nil), b...), '\n')
}

// Parse reads an archive made by Format.
func Parse(data []byte) *Archive {
	a := &Archive{}
	var cur *File
	for len(data) > 0 {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		if name, ok := marker(line); ok {
			a.Files = append(a.Files, File{Name: name})
			cur = &a.Files[len(a.Files)-1]
		} else if cur == nil {
			a.Comment = append(append(a.Comment, line...), '\n')
		} else {
			cur.Data = append(append(cur.Data, line...), '\n')
		}
		data = rest
	}
	return a
}

func marker(line []byte) (string, bool) {
	s, ok := strings.CutPrefix(string(line), "-- ")
	if !ok {
		return "", false
	}
	s, ok = strings.CutSuffix(s, " --")
	if !ok || s == "" {
		return "", false
	}
	return s, true
}

// TB is the part of testing.TB that Check uses.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Check compares a with the archive in file (a path under the caller's
// testdata). With update it writes a there instead. A difference names
// each section that changed, with both versions.
func Check(t TB, file string, a *Archive, update bool) {
	t.Helper()
	got := a.Format()
	if update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil { // a test's testdata, not a workspace path
			t.Fatalf("golden: %v", err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil { // a test's testdata, not a workspace path
			t.Fatalf("golden: %v", err)
		}
		return
	}
	want, err := os.ReadFile(file) // a test's testdata, not a workspace path
	if err != nil {
		t.Fatalf("golden: %v (run the test with -update to write it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	w := Parse(want)
	old := map[string][]byte{}
	for _, f := range w.Files {
		old[f.Name] = f.Data
	}
	seen := map[string]bool{}
	for _, f := range a.Files {
		seen[f.Name] = true
		o, ok := old[f.Name]
		switch {
		case !ok:
			t.Errorf("%s: new section %q:\n%s", file, f.Name, f.Data)
		case !bytes.Equal(fixNL(o), fixNL(f.Data)):
			t.Errorf("%s: section %q changed\n--- golden\n%s+++ now\n%s", file, f.Name, fixNL(o), fixNL(f.Data))
		}
	}
	for _, f := range w.Files {
		if !seen[f.Name] {
			t.Errorf("%s: section %q is gone", file, f.Name)
		}
	}
	if !bytes.Equal(fixNL(w.Comment), fixNL(a.Comment)) {
		t.Errorf("%s: comment changed", file)
	}
	t.Errorf("%s differs from what the code makes now; if the change is meant, run go test with -update and review the diff", file)
}

// Normalizer replaces nondeterministic values by stable placeholders.
// The zero value is ready to use.
type Normalizer struct {
	pairs []pair
	count map[string]int
}

type pair struct{ old, new string }

// Add registers value as a value of kind: it is replaced by "<kind>N", N
// counting the distinct values of that kind in the order they were added. A
// value added twice keeps its first placeholder. Empty values are ignored.
func (n *Normalizer) Add(kind, value string) {
	if value == "" {
		return
	}
	for _, p := range n.pairs {
		if p.old == value {
			return
		}
	}
	if n.count == nil {
		n.count = map[string]int{}
	}
	n.count[kind]++
	n.pairs = append(n.pairs, pair{value, fmt.Sprintf("%s%d", kind, n.count[kind])})
}

// Fixed registers value to be replaced by exactly placeholder.
func (n *Normalizer) Fixed(value, placeholder string) {
	if value != "" {
		n.pairs = append(n.pairs, pair{value, placeholder})
	}
}

// Apply returns b with every registered value replaced, longest first so
// that a value inside another does not break it.
func (n *Normalizer) Apply(b []byte) []byte {
	ps := append([]pair(nil), n.pairs...)
	sort.SliceStable(ps, func(i, j int) bool { return len(ps[i].old) > len(ps[j].old) })
	s := string(b)
	for _, p := range ps {
		s = strings.ReplaceAll(s, p.old, p.new)
	}
	return []byte(s)
}
