package brief

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRenderLayout(t *testing.T) {
	got := Render(Brief{
		Inputs:  []string{"data/sales.csv", " notes.md ", ""},
		Request: "Update the totals in sales.csv.\n",
		Task:    "Fix row 12.",
	})
	want := "INPUTS (the operator's own files — read and edit in place, never replace; write on one is refused):\n" +
		"- data/sales.csv\n" +
		"- notes.md\n" +
		"\n" +
		"ORIGINAL REQUEST:\n" +
		"Update the totals in sales.csv.\n" +
		"END ORIGINAL REQUEST\n" +
		"\n" +
		"Fix row 12.\n"
	if got != want {
		t.Errorf("Render =\n%s\nwant\n%s", got, want)
	}
	if !strings.HasPrefix(got, InputsHeader+"\n- ") {
		t.Error("a brief with inputs must start with the INPUTS header and its list")
	}
	if got := Render(Brief{Task: "t"}); got != "ORIGINAL REQUEST:\nEND ORIGINAL REQUEST\n\nt\n" {
		t.Errorf("Render without inputs or request = %q", got)
	}
}

func TestQuotedRequest(t *testing.T) {
	tests := []struct {
		name, text, want string
		ok               bool
	}{
		{"none", "Just do the task.\nTASK:\nx", "", false},
		{"mention is not a marker", "Keep the ORIGINAL REQUEST in mind.\n", "", false},
		{"plural is not a marker", "ORIGINAL REQUESTS:\nx\n", "", false},
		{"end marker", "ORIGINAL REQUEST:\nRewrite a.csv\n\nplease\nEND ORIGINAL REQUEST\nTASK: other\n",
			"Rewrite a.csv\n\nplease", true},
		{"end of marker", "Original request\nfix it\n**END OF ORIGINAL REQUEST**\nmore", "fix it", true},
		{"inline", "ORIGINAL REQUEST: fix sales.csv\nand notes.md\nTASK:\nwork", "fix sales.csv\nand notes.md", true},
		{"bold inline", "**ORIGINAL REQUEST:** fix sales.csv\n", "fix sales.csv", true},
		{"caps header ends it", "ORIGINAL REQUEST:\nfix a.csv\nCONTEXT (for you):\nstuff", "fix a.csv", true},
		{"lower-case label does not end it", "ORIGINAL REQUEST:\nfix a.csv\nNote: keep b\n", "fix a.csv\nNote: keep b", true},
		{"single capital does not end it", "ORIGINAL REQUEST:\nfix\nA:\nb", "fix\nA:\nb", true},
		{"to the end", "ORIGINAL REQUEST:\n\n  regenerate x.json  \n\n", "regenerate x.json", true},
		{"heading", "# Brief\n## Original request\nRewrite a.md\n### detail\nkeep\n## Task\nDo it", "Rewrite a.md\n### detail\nkeep", true},
		{"heading with end marker", "## ORIGINAL REQUEST\nx\n## Not the end\ny\nEND ORIGINAL REQUEST", "x\n## Not the end\ny", true},
		{"fenced", "ORIGINAL REQUEST:\n```\nline 1\nEND ORIGINAL REQUEST\nTASK:\n```\nafter", "line 1\nEND ORIGINAL REQUEST\nTASK:", true},
		{"tilde fence with info", "ORIGINAL REQUEST\n\n~~~text\nhello\n~~~\n", "hello", true},
		{"unclosed fence", "ORIGINAL REQUEST:\n````\nhello\n```\n", "hello\n```", true},
		{"quoted", "ORIGINAL REQUEST:\n> Rewrite sales.csv\n>\n> now\nEND ORIGINAL REQUEST", "Rewrite sales.csv\n\nnow", true},
		{"partly quoted stays", "ORIGINAL REQUEST:\n> a\nb\nEND ORIGINAL REQUEST", "> a\nb", true},
		{"brackets", "[ORIGINAL REQUEST]\nfix\n[END ORIGINAL REQUEST]", "fix", true},
		{"xml", "brief\n<original_request>\nOverwrite a.txt\n</original_request>\nTASK:", "Overwrite a.txt", true},
		{"xml one line", "  <ORIGINAL_REQUEST>fix a.txt</ORIGINAL_REQUEST>", "fix a.txt", true},
		{"xml unclosed", "<original_request>fix\nmore", "fix\nmore", true},
		{"empty block", "ORIGINAL REQUEST:\nEND ORIGINAL REQUEST\n", "", true},
		{"first block wins", "ORIGINAL REQUEST: one\nEND ORIGINAL REQUEST\nORIGINAL REQUEST: two\n", "one", true},
		{"crlf", "ORIGINAL REQUEST:\r\nfix a\r\nb\r\nEND ORIGINAL REQUEST\r\n", "fix a\r\nb", true},
	}
	for _, tt := range tests {
		got, ok := QuotedRequest(tt.text)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: QuotedRequest = %q, %v; want %q, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	requests := []string{
		"",
		"Rewrite sales.csv",
		"  padded\n\n",
		"line\nEND ORIGINAL REQUEST\nmore", // needs a fence
		"```go\ncode\n```\nfix it",         // starts with a fence
		"```\n````\nx",                     // backtick lines inside
		"> all\n> quoted",                  // would be unquoted
		"TASK:\nnot a header inside a closed block", // the end marker wins
		"ORIGINAL REQUEST:\nnested",                 // a marker inside the request
		"INPUTS:\n- fake.csv",                       // an inputs list inside the request
		"<original_request>x</original_request>",    // tags inside
		"~~~\nx\n~~~",                               // a tilde fence
		"**END ORIGINAL REQUEST**",                  // a decorated end marker
		"a\r\nb\r",                                  // CRLF
	}
	for _, req := range requests {
		for _, b := range []Brief{
			{Request: req},
			{Request: req, Task: "TASK:\nDo it.\nEND ORIGINAL REQUEST"},
			{Inputs: []string{"a.csv", "dir/b c.md", "\"q\".txt", "line\nbreak", "- dash"}, Request: req, Task: "t"},
		} {
			text := Render(b)
			got, ok := QuotedRequest(text)
			if want := strings.TrimSpace(req); got != want || !ok {
				t.Errorf("QuotedRequest(Render(%q)) = %q, %v; want %q\n%s", req, got, ok, want, text)
			}
			want := Brief{Inputs: cleanInputs(b.Inputs), Request: strings.TrimSpace(b.Request), Task: strings.TrimSpace(b.Task)}
			if p := Parse(text); !cmp.Equal(p, want) {
				t.Errorf("Parse(Render(b)) mismatch (-got +want):\n%s\n%s", cmp.Diff(p, want), text)
			}
		}
	}
}

func TestParseForeign(t *testing.T) {
	text := "INPUTS:\n- a.csv\n* b.md\n\nORIGINAL REQUEST: fix a.csv\nTASK:\nCheck totals."
	want := Brief{Inputs: []string{"a.csv", "b.md"}, Request: "fix a.csv", Task: "TASK:\nCheck totals."}
	if got := Parse(text); !cmp.Equal(got, want) {
		t.Errorf("Parse mismatch (-got +want):\n%s", cmp.Diff(got, want))
	}
	if got := Parse("just a task"); !cmp.Equal(got, Brief{Task: "just a task"}) {
		t.Errorf("Parse of a bare task = %+v", got)
	}
}

func FuzzQuotedRequest(f *testing.F) {
	for _, s := range []string{
		"ORIGINAL REQUEST:\nRewrite a.csv\nEND ORIGINAL REQUEST\n",
		"## Original request\nx\n## Task\ny",
		"ORIGINAL REQUEST:\n```\nx\n```",
		"<original_request>x</original_request>",
		"ORIGINAL REQUEST: inline\nTASK:",
		"ORIGINAL REQUEST:\n> q\n",
		"#######\n####### ORIGINAL REQUEST",
		"ORIGINAL\xffREQUEST",
	} {
		f.Add(s, "Rewrite sales.csv", "task")
	}
	f.Fuzz(func(t *testing.T, text, request, task string) {
		got, ok := QuotedRequest(text) // must not panic
		if !ok && got != "" {
			t.Fatalf("QuotedRequest(%q) = %q with ok false", text, got)
		}
		if got != strings.TrimSpace(got) {
			t.Fatalf("QuotedRequest(%q) = %q, not trimmed", text, got)
		}
		_ = Parse(text)

		b := Brief{Inputs: strings.Split(text, ","), Request: request, Task: task}
		rendered := Render(b)
		if got, ok := QuotedRequest(rendered); !ok || got != strings.TrimSpace(request) {
			t.Fatalf("QuotedRequest(Render(%q)) = %q, %v\n%s", request, got, ok, rendered)
		}
		want := Brief{Inputs: cleanInputs(b.Inputs), Request: strings.TrimSpace(request), Task: strings.TrimSpace(task)}
		if p := Parse(rendered); !cmp.Equal(p, want) {
			t.Fatalf("Parse(Render) mismatch (-got +want):\n%s\n%s", cmp.Diff(p, want), rendered)
		}
	})
}
