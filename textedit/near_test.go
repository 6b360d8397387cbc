package textedit

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const goSource = `package demo

import "fmt"

func greet(name string) {
	if name == "" {
		name = "world"
	}
	fmt.Println("hello, " + name)
}

func farewell() {
	fmt.Println("bye")
}
`

func TestNoMatchNear(t *testing.T) {
	tests := []struct {
		name string
		text string
		old  string
		msg  string
		near *Near
	}{
		{
			name: "indentation",
			text: goSource,
			old:  "  if name == \"\" {\n    name = \"world\"\n  }",
			msg:  "old_string not found; nearest is lines 6-8, which differ in tabs vs spaces",
			near: &Near{StartLine: 6, EndLine: 8, Text: "00006|\tif name == \"\" {\n00007|\t\tname = \"world\"\n00008|\t}", Differences: []string{DiffTabs}},
		},
		{
			name: "indentation depth",
			text: "def f():\n    if x:\n        return 1\n",
			old:  "  if x:\n      return 1\n",
			msg:  "old_string not found; nearest is lines 2-3, which differ in indentation",
			near: &Near{StartLine: 2, EndLine: 3, Text: "00002|    if x:\n00003|        return 1", Differences: []string{DiffIndentation}},
		},
		{
			name: "trailing space",
			text: "a := 1  \nb := 2\n",
			old:  "a := 1\nb := 2",
			msg:  "old_string not found; nearest is lines 1-2, which differ in trailing space",
			near: &Near{StartLine: 1, EndLine: 2, Text: "00001|a := 1  \n00002|b := 2", Differences: []string{DiffTrailingSpace}},
		},
		{
			name: "quotes",
			text: "intro\nShe said “hi” and left.\noutro\n",
			old:  `She said "hi" and left.`,
			msg:  "old_string not found; nearest is line 2, which differs in quotes",
			near: &Near{StartLine: 2, EndLine: 2, Text: "00002|She said “hi” and left.", Differences: []string{DiffQuotes}},
		},
		{
			name: "curly apostrophe in old",
			text: "it's fine\n",
			old:  "it’s fine",
			msg:  "old_string not found; nearest is line 1, which differs in quotes",
			near: &Near{StartLine: 1, EndLine: 1, Text: "00001|it's fine", Differences: []string{DiffQuotes}},
		},
		{
			name: "an em dash written as a hyphen",
			text: "intro\nfast — always\noutro\n",
			old:  "fast - always",
			msg:  "old_string not found; nearest is line 2, which differs in dashes",
			near: &Near{StartLine: 2, EndLine: 2, Text: "00002|fast — always", Differences: []string{DiffDashes}},
		},
		{
			name: "an en dash and a minus sign in old",
			text: "pages 10-12, x = a - b\n",
			old:  "pages 10–12, x = a − b",
			msg:  "old_string not found; nearest is line 1, which differs in dashes",
			near: &Near{StartLine: 1, EndLine: 1, Text: "00001|pages 10-12, x = a - b", Differences: []string{DiffDashes}},
		},
		{
			name: "a no-break space",
			text: "total\nprice: 10\u00a0€\n",
			old:  "price: 10 €",
			msg:  "old_string not found; nearest is line 2, which differs in no-break spaces",
			near: &Near{StartLine: 2, EndLine: 2, Text: "00002|price: 10\u00a0€", Differences: []string{DiffNoBreakSpaces}},
		},
		{
			name: "a narrow no-break space and quotes",
			text: "say “1\u202f000”\n",
			old:  `say "1 000"`,
			msg:  "old_string not found; nearest is line 1, which differs in quotes and no-break spaces",
			near: &Near{StartLine: 1, EndLine: 1, Text: "00001|say “1\u202f000”", Differences: []string{DiffQuotes, DiffNoBreakSpaces}},
		},
		{
			name: "line endings",
			text: "one\ntwo\nthree\n",
			old:  "one\r\ntwo\r\n",
			msg:  "old_string not found; nearest is lines 1-2, which differ in line endings",
			near: &Near{StartLine: 1, EndLine: 2, Text: "00001|one\n00002|two", Differences: []string{DiffLineEndings}},
		},
		{
			name: "spacing inside a line",
			text: "x = 1\nlonger  = 2\n",
			old:  "longer = 2",
			msg:  "old_string not found; nearest is line 2, which differs in spacing",
			near: &Near{StartLine: 2, EndLine: 2, Text: "00002|longer  = 2", Differences: []string{DiffSpacing}},
		},
		{
			name: "several differences",
			text: "\tsay(“a”)  \n\tsay(“b”)\n",
			old:  "    say(\"a\")\n    say(\"b\")",
			msg:  "old_string not found; nearest is lines 1-2, which differ in tabs vs spaces, trailing space and quotes",
			near: &Near{StartLine: 1, EndLine: 2, Text: "00001|\tsay(“a”)  \n00002|\tsay(“b”)", Differences: []string{DiffTabs, DiffTrailingSpace, DiffQuotes}},
		},
		{
			name: "crlf file: adapted line endings are not a difference",
			text: "a {\r\n\tb\r\n}\r\n",
			old:  "a {\n    b\n}",
			msg:  "old_string not found; nearest is lines 1-3, which differ in tabs vs spaces",
			near: &Near{StartLine: 1, EndLine: 3, Text: "00001|a {\r\n00002|\tb\r\n00003|}\r", Differences: []string{DiffTabs}},
		},
		{
			name: "content",
			text: goSource,
			old:  "func farewell() {\n\tfmt.Println(\"goodbye\")\n}",
			msg:  "old_string not found; nearest is lines 12-14, which differ in content",
			near: &Near{StartLine: 12, EndLine: 14, Text: "00012|func farewell() {\n00013|\tfmt.Println(\"bye\")\n00014|}", Differences: []string{DiffContent}},
		},
		{
			name: "nothing alike",
			text: goSource,
			old:  "SELECT * FROM users WHERE id = 7;",
			msg:  "old_string not found",
		},
		{
			name: "old ends in a newline the last line lacks",
			text: "\n",
			old:  "\n\n",
			msg:  "old_string not found",
		},
		{
			name: "old starts and ends mid-line",
			text: "alpha beta\ngamma delta\n",
			old:  "beta\n  gamma",
			msg:  "old_string not found; nearest is lines 1-2, which differ in indentation",
			near: &Near{StartLine: 1, EndLine: 2, Text: "00001|alpha beta\n00002|gamma delta", Differences: []string{DiffIndentation}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Apply([]byte(tt.text), []Edit{{Old: tt.old, New: "REPLACED"}})
			var ne *NoMatchError
			if !errors.As(err, &ne) {
				t.Fatalf("err = %v, want *NoMatchError", err)
			}
			if ne.Old != tt.old {
				t.Errorf("Old = %q, want %q", ne.Old, tt.old)
			}
			if err.Error() != tt.msg {
				t.Errorf("message %q\nwant    %q", err, tt.msg)
			}
			if diff := cmp.Diff(tt.near, ne.Near); diff != "" {
				t.Errorf("Near (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNearInLargeText(t *testing.T) {
	var b strings.Builder
	for i := range 110000 {
		fmt.Fprintf(&b, "\tvalue%d := compute(%d)\n", i, i)
	}
	text := b.String()
	_, err := Apply([]byte(text), []Edit{{Old: "    value103456 := compute(103456)\n    value103457 := compute(103457)", New: "x"}})
	var ne *NoMatchError
	if !errors.As(err, &ne) || ne.Near == nil {
		t.Fatalf("err = %v, want a NoMatchError with Near", err)
	}
	want := &Near{
		StartLine: 103457, EndLine: 103458,
		Text:        "103457|\tvalue103456 := compute(103456)\n103458|\tvalue103457 := compute(103457)",
		Differences: []string{DiffTabs},
	}
	if diff := cmp.Diff(want, ne.Near); diff != "" {
		t.Errorf("Near (-want +got):\n%s", diff)
	}
}

func TestNearShortensLongRegions(t *testing.T) {
	var text, old strings.Builder
	for i := range 50 {
		fmt.Fprintf(&text, "line %d\n", i)
		fmt.Fprintf(&old, "line %d \n", i)
	}
	text.WriteString(strings.Repeat("y", 1000) + "\n")
	_, err := Apply([]byte(text.String()), []Edit{{Old: old.String(), New: "x"}})
	var ne *NoMatchError
	if !errors.As(err, &ne) || ne.Near == nil {
		t.Fatalf("err = %v", err)
	}
	if ne.Near.StartLine != 1 || ne.Near.EndLine != 50 {
		t.Errorf("lines %d-%d, want 1-50", ne.Near.StartLine, ne.Near.EndLine)
	}
	lines := strings.Split(ne.Near.Text, "\n")
	if len(lines) != maxShownLines+1 || lines[maxShownLines] != "… (10 more lines)" {
		t.Errorf("shown %d lines, last %q", len(lines), lines[len(lines)-1])
	}

	_, err = Apply([]byte(text.String()), []Edit{{Old: strings.Repeat("y", 999) + "z", New: "x"}})
	if !errors.As(err, &ne) || ne.Near == nil {
		t.Fatalf("err = %v", err)
	}
	if want := "00051|" + strings.Repeat("y", maxShownLineLen) + "… (600 more bytes)"; ne.Near.Text != want {
		t.Errorf("Text = %q, want %q", ne.Near.Text, want)
	}
}

func TestNearMisspeltWordInLargeText(t *testing.T) {
	var b strings.Builder
	for i := range 110000 {
		fmt.Fprintf(&b, "\tregisterHandlerForEndpoint%06d(ctx)\n", i)
	}
	_, err := Apply([]byte(b.String()), []Edit{{Old: "\tregisterHandlerForEndpiont103456(ctx)", New: "x"}})
	var ne *NoMatchError
	if !errors.As(err, &ne) || ne.Near == nil {
		t.Fatalf("err = %v, want a NoMatchError with Near", err)
	}
	want := &Near{StartLine: 103457, EndLine: 103457, Text: "103457|\tregisterHandlerForEndpoint103456(ctx)", Differences: []string{DiffContent}}
	if diff := cmp.Diff(want, ne.Near); diff != "" {
		t.Errorf("Near (-want +got):\n%s", diff)
	}
}

// TestTypographicKinds: every dash and no-break space named is folded for
// finding the nearest region, and they split words as quotes do, so a word
// glued to one by a dash is still an anchor.
func TestTypographicKinds(t *testing.T) {
	for _, d := range []string{"\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2015", "\u2212"} {
		if dashLen([]byte(d+"x")) != 3 {
			t.Errorf("%U is not read as a dash", []rune(d)[0])
		}
	}
	for _, c := range []string{"\u2016", "\u200f", "\u2211", "-"} {
		if dashLen([]byte(c)) != 0 {
			t.Errorf("%q is read as a dash", c)
		}
	}
	for _, sp := range []string{"\u00a0", "\u2007", "\u202f"} {
		if nbspLen([]byte(sp)) != len(sp) {
			t.Errorf("%U is not read as a no-break space", []rune(sp)[0])
		}
	}
	for _, c := range []string{"\u2008", "\u00a1", " "} {
		if nbspLen([]byte(c)) != 0 {
			t.Errorf("%q is read as a no-break space", c)
		}
	}
	got := words([]byte("fast\u2014always\u00a0now\u201cq\u201d"))
	want := []string{"fast", "always", "now", "q"}
	if len(got) != len(want) {
		t.Fatalf("words = %q, want %q", got, want)
	}
	for i := range want {
		if string(got[i]) != want[i] {
			t.Fatalf("words = %q, want %q", got, want)
		}
	}
}
