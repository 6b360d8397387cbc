package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An archive reads back as it was written.
func TestFormatParse(t *testing.T) {
	a := &Archive{Comment: []byte("a comment\n"), Files: []File{{"one.json", []byte(`{"a":1}`)}, {"two.txt", []byte("x\n-- not a marker\n")}}}
	b := a.Format()
	got := Parse(b)
	if string(got.Format()) != string(b) || len(got.Files) != 2 || got.Files[1].Name != "two.txt" {
		t.Errorf("Parse(Format(a)) = %+v; want the same archive back:\n%s", got, b)
	}
}

// Each distinct value of a kind gets its own placeholder, longest first,
// so a value inside another is not split.
func TestNormalizer(t *testing.T) {
	var n Normalizer
	n.Add("V", "abc")
	n.Add("V", "abcdef")
	n.Add("V", "abc")
	n.Fixed("/tmp/x", "$TMP")
	got := string(n.Apply([]byte("abcdef abc /tmp/x/abc")))
	if want := "V2 V1 $TMP/V1"; got != want {
		t.Errorf("Apply = %q, want %q", got, want)
	}
}

type recorder struct{ errs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// Check passes on the same archive and names the changed section otherwise.
func TestCheck(t *testing.T) {
	file := filepath.Join(t.TempDir(), "g.txtar")
	a := &Archive{Files: []File{{"a", []byte("1\n")}, {"b", []byte("2\n")}}}
	Check(t, file, a, true)
	if _, err := os.Stat(file); err != nil { // the test's own temp file
		t.Fatal(err)
	}
	var ok recorder
	Check(&ok, file, a, false)
	if len(ok.errs) != 0 {
		t.Errorf("same archive: %v", ok.errs)
	}
	var bad recorder
	Check(&bad, file, &Archive{Files: []File{{"a", []byte("1\n")}, {"b", []byte("3\n")}}}, false)
	if len(bad.errs) == 0 || !strings.Contains(strings.Join(bad.errs, "\n"), `section "b" changed`) {
		t.Errorf("changed section b: %v", bad.errs)
	}
}
