package policy

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNamesFile(t *testing.T) {
	tests := []struct {
		request, path string
		want          bool
	}{
		// SPEC examples.
		{"data/sales.csv", "data/sales.csv", true},
		{"`Sales.CSV`", "data/sales.csv", true},
		{"Update sales.csv.", "data/sales.csv", true},
		{"old-sales.csv", "data/sales.csv", false},
		{"sales.csv.bak", "data/sales.csv", false},
		{"sales.csv2", "data/sales.csv", false},
		// Punctuation and markup around the name.
		{`Fix "sales.csv", then report`, "sales.csv", true},
		{"(see sales.csv)", "sales.csv", true},
		{"sales.csv:12 has a bad row", "sales.csv", true},
		{"sales.csv,notes.md", "notes.md", true},
		{"@sales.csv please", "sales.csv", true},
		{"**SALES.CSV**!", "sales.csv", true},
		{"is it sales.csv?", "sales.csv", true},
		{"sales.csv... and more", "sales.csv", true},
		{"open ./sales.csv", "sales.csv", true},
		{`open data\sales.csv`, "sales.csv", true},
		{"‘sales.csv’", "sales.csv", true},
		// Other names that contain it.
		{"mysales.csv", "sales.csv", false},
		{".sales.csv", "sales.csv", false},
		{"sales.csv~", "sales.csv", false},
		{"sales_csv", "sales.csv", false},
		{"sales.csv.d/x", "sales.csv", false},
		{"salesXcsv", "sales.csv", false},
		{"old-sales.csv, then sales.csv", "sales.csv", true}, // a later whole occurrence counts
		// The path's directory does not matter, only its base name.
		{"update sales.csv", "data/2024/Sales.csv", true},
		{"update data/sales.csv", "other/sales.csv", true},
		{"update sales.csv", `data\sales.csv`, true},
		{"update the data folder", "data/", true},
		// Degenerate inputs.
		{"", "sales.csv", false},
		{"sales.csv", "", false},
		{"sales.csv", "/", false},
	}
	for _, tt := range tests {
		if got := NamesFile(tt.request, tt.path); got != tt.want {
			t.Errorf("NamesFile(%q, %q) = %v, want %v", tt.request, tt.path, got, tt.want)
		}
	}
}

func TestAsksToReplace(t *testing.T) {
	tests := []struct {
		request string
		want    bool
	}{
		{"Rewrite sales.csv with the cleaned rows", true},
		{"Please regenerate `sales.csv` from the database.", true},
		{"Overwrite sales.csv.", true},
		{"Replace the header row in sales.csv", true},
		{"Reset sales.csv to the template", true},
		{"Rewriting sales.csv is fine", true},
		{"REGENERATE SALES.CSV", true},
		{"**Rewrite** sales.csv", true},
		{`Replace "sales.csv"`, true},
		{"overwrite report.csv and sales.csv", true},
		{"regenerate all of sales.csv!", true},
		{"Recreate data/sales.csv from scratch", true},
		{"Create summary.csv; do not touch it. Then regenerate sales.csv.", true},
		// Within 6 words after the verb, not beyond.
		{"Rewrite a b c d e sales.csv", true},
		{"Rewrite a b c d e f sales.csv", false},
		{"Rewrite the summary section of the quarterly report using sales.csv", false},
		// Same sentence: a word ending in . ! ? ; : ends it.
		{"Rewrite the report. sales.csv has the data", false},
		{"Rewrite the report; sales.csv stays", false},
		{"Recreate it: sales.csv is fine", false},
		{"Rewrite: sales.csv", false}, // the verb's own ":" ends its sentence
		{"Is it rewritten? sales.csv", false},
		{`Rewrite "the report." sales.csv`, false}, // a closing quote after the "." still ends it
		// Negations among the 3 words before the verb.
		{"Don't rewrite sales.csv", false},
		{"don’t rewrite sales.csv", false},
		{"dont rewrite sales.csv", false},
		{"Do not overwrite sales.csv", false},
		{"never regenerate sales.csv", false},
		{"Edit sales.csv instead of rewriting sales.csv", false},
		{"Make a new file rather than overwrite sales.csv", false},
		{"Neither edit nor replace sales.csv", false},
		{"Clean it up without overwriting sales.csv", false},
		{"No, do not recreate sales.csv", false},
		{"No. Rewrite sales.csv", false},                   // looked at whatever sentence it is in
		{"NOT to be reset: sales.csv", false},              // negated, and ":" ends the sentence
		{"Not now, but please rewrite sales.csv", false},   // any negation in the sentence keeps the guard
		{"I don’t want you to overwrite sales.csv", false}, // a negated wish
		// No verb, or not the name.
		{"Update sales.csv", false},
		{"Fix the totals in sales.csv", false},
		{"Rewrite old-sales.csv", false},
		{"rewrite sales.csv.bak", false},
		{"prereplace sales.csv", false},
		{"Rewrite the report", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := AsksToReplace(tt.request, "data/sales.csv"); got != tt.want {
			t.Errorf("AsksToReplace(%q) = %v, want %v", tt.request, got, tt.want)
		}
	}
}

func FuzzAsksToReplace(f *testing.F) {
	for _, s := range []string{
		"Rewrite sales.csv", "Don't overwrite `Sales.CSV`.", "old-sales.csv", "sales.csv.bak",
		"Rewrite: sales.csv", "replace a b c d e f sales.csv", "\xff sales.csv \xfe", "İ sales.csv",
	} {
		f.Add(s, "data/sales.csv")
	}
	f.Fuzz(func(t *testing.T, request, path string) {
		asks := AsksToReplace(request, path)
		names := NamesFile(request, path)
		if asks && !names {
			t.Fatalf("AsksToReplace(%q, %q) without NamesFile", request, path)
		}
		if isASCII(request) && isASCII(path) {
			if u := strings.ToUpper(request); NamesFile(u, path) != names || AsksToReplace(u, path) != asks {
				t.Fatalf("letter case changed the verdict for %q, %q", request, path)
			}
		}
		if names && GuardReplace(path, "1 line → 1", request, false, false) == "" && !asks {
			t.Fatalf("GuardReplace let a named file through: %q, %q", request, path)
		}
	})
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func TestNormalizeInputs(t *testing.T) {
	got, err := NormalizeInputs([]string{"a.csv", " b.md ", "a.csv", "./a.csv", "*.txt", "data/[x]", "q?", "c/d.json"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.csv", "b.md", "c/d.json"}; !cmp.Equal(got, want) {
		t.Errorf("NormalizeInputs = %q, want %q", got, want)
	}
	if got, err := NormalizeInputs(nil); got != nil || err != nil {
		t.Errorf("NormalizeInputs(nil) = %q, %v", got, err)
	}

	got, err = NormalizeInputs([]string{"a", "", "b", " \t", "x\x00y"})
	if got != nil || err == nil {
		t.Fatalf("NormalizeInputs with bad entries = %q, %v; want an error", got, err)
	}
	for _, want := range []string{
		"inputs[1] must be a non-empty path", "inputs[3] must be a non-empty path", "inputs[4] must not contain a NUL byte",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	var ie *InputError
	if !errors.As(err, &ie) || ie.Index != 1 {
		t.Errorf("errors.As(*InputError) = %v, want index 1", ie)
	}

	many := make([]string, 0, 40)
	for i := range 32 {
		many = append(many, fmt.Sprintf("f%d", i))
	}
	many = append(many, "f0", "f1 ", "*.go") // duplicates and globs do not count
	if got, err := NormalizeInputs(many); err != nil || len(got) != 32 {
		t.Errorf("32 paths: %d, %v", len(got), err)
	}
	if _, err := NormalizeInputs(append(many, "f32")); !errors.Is(err, ErrTooManyInputs) {
		t.Errorf("33 paths: error %v, want ErrTooManyInputs", err)
	}
}

func TestRefusalTexts(t *testing.T) {
	if got, want := InputRefusal("data/sales.csv", "2,402 lines → 10"),
		"refused: data/sales.csv is an input this fan-out declared (2,402 lines → 10); edit it in place (edit / patch)"+
			" — a worker cannot replace a declared input; if the task needs it replaced, say so in your reply so the"+
			" orchestrator can redeclare it"; got != want {
		t.Errorf("InputRefusal =\n%q\nwant\n%q", got, want)
	}
	if got, want := RequestRefusal("./Sales.csv", "5.0 MB → 1 line"),
		"refused: ./Sales.csv is an input the request names (5.0 MB → 1 line); edit it in place (edit / patch),"+
			" or pass overwrite: true if replacing it is really what the user asked for"; got != want {
		t.Errorf("RequestRefusal =\n%q\nwant\n%q", got, want)
	}
}

func TestGuardReplace(t *testing.T) {
	const counts = "2,402 lines → 10"
	tests := []struct {
		name                string
		request             string
		declared, overwrite bool
		want                string
	}{
		{"declared input, even with overwrite", "", true, true, InputRefusal("sales.csv", counts)},
		{"declared input, even when asked", "Rewrite sales.csv", true, false, InputRefusal("sales.csv", counts)},
		{"named by the request", "Update sales.csv totals", false, false, RequestRefusal("sales.csv", counts)},
		{"named, overwrite set", "Update sales.csv totals", false, true, ""},
		{"named and asked to replace", "Regenerate sales.csv", false, false, ""},
		{"named, replace negated", "Do not regenerate sales.csv", false, false, RequestRefusal("sales.csv", counts)},
		{"not named", "Write a summary", false, false, ""},
	}
	for _, tt := range tests {
		if got := GuardReplace("sales.csv", counts, tt.request, tt.declared, tt.overwrite); got != tt.want {
			t.Errorf("%s: GuardReplace = %q, want %q", tt.name, got, tt.want)
		}
	}
}
