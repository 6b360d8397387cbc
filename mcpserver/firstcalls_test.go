package mcpserver

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/frame"
	"github.com/stet-dev/stet/fsys"
)

const (
	firstMain = "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"
	firstUtil = "package main\n\nfunc util() {}\n"
	firstNew  = "package main\n\nfunc main() { println(\"replaced\") }\n"
)

// firstStep is one call of a fresh session's first changes: the tool and
// its arguments, and whether it must land or be refused not_read.
type firstStep struct {
	tool    string
	args    map[string]any
	refused bool
}

// TestFirstChangesNative: a fresh session's first four changes (create a
// file, edit a file, overwrite a file, move a file) land in six calls, none
// of them a read or a list: each refusal that asks the session to look
// shows what it must see (the directory's listing, the file's frame), and
// the retry lands.
func TestFirstChangesNative(t *testing.T) {
	eachTransport(t, func(t *testing.T, connect connectFunc) {
		steps := []firstStep{
			{"write", map[string]any{"path": "src/util.go", "content": firstUtil}, true},
			{"write", map[string]any{"path": "src/util.go", "content": firstUtil}, false},
			{"edit", map[string]any{"path": "src/main.go", "old_string": `"hello"`, "new_string": `"hi"`}, true},
			{"edit", map[string]any{"path": "src/main.go", "old_string": `"hello"`, "new_string": `"hi"`}, false},
			{"write", map[string]any{"path": "src/main.go", "content": firstNew, "overwrite": true}, false},
			{"move", map[string]any{"from": "src/util.go", "to": "src/helpers.go"}, false},
		}
		testFirstChanges(t, connect, Options{Version: "test"}, steps)
	})
}

// TestFirstChangesReference is TestFirstChangesNative on the reference
// profile's tools (write_file, edit_file, move_file).
func TestFirstChangesReference(t *testing.T) {
	edit := map[string]any{"path": "src/main.go", "edits": []map[string]any{{"oldText": `"hello"`, "newText": `"hi"`}}}
	steps := []firstStep{
		{"write_file", map[string]any{"path": "src/util.go", "content": firstUtil}, true},
		{"write_file", map[string]any{"path": "src/util.go", "content": firstUtil}, false},
		{"edit_file", edit, true},
		{"edit_file", edit, false},
		{"write_file", map[string]any{"path": "src/main.go", "content": firstNew}, false},
		{"move_file", map[string]any{"source": "src/util.go", "destination": "src/helpers.go"}, false},
	}
	testFirstChanges(t, connectStdio, Options{Version: "test", Profile: ProfileReference}, steps)
}

func testFirstChanges(t *testing.T, connect connectFunc, opts Options, steps []firstStep) {
	f := newFixture(t, map[string]string{"src/main.go": firstMain, "README.md": "# app\n"}, stet.Options{})
	cs, _ := connect(t, New(f.ws, opts), nil, nil)
	if len(steps) > 6 {
		t.Fatalf("%d calls for the four changes, want at most 6", len(steps))
	}
	for i, st := range steps {
		switch st.tool {
		case "read", "list", "read_text_file", "list_directory":
			t.Fatalf("step %d is a %s: the four changes must land without one", i+1, st.tool)
		}
		r := call(t, cs, st.tool, st.args)
		if !st.refused {
			mustOK(t, st.tool, r)
			continue
		}
		r = mustRefuse(t, st.tool, r, stet.KindNotRead)
		if !strings.Contains(r.Text, "then retry") {
			t.Errorf("step %d: the refusal does not say to retry: %s", i+1, r.Text)
		}
		switch {
		case r.Structured[stet.ShownListing] != nil:
			// The listing of src/, shown after the message as list shows it.
			ls, _ := r.Structured[stet.ShownListing].(map[string]any)
			ents, _ := ls["entries"].([]any)
			if len(ents) != 1 || ents[0].(map[string]any)["name"] != "main.go" || !strings.Contains(r.Text, "\n\nmain.go  (") {
				t.Errorf("step %d: listing %v, text %q", i+1, ls, r.Text)
			}
		case r.Structured[stet.ShownFrame] != nil:
			fr, _ := r.Structured[stet.ShownFrame].(map[string]any)
			want := wholeFrame([]byte(firstMain))
			text := want
			if opts.Profile == ProfileReference {
				text = firstMain // as read_text_file shows it: no line numbers
			}
			if fr["frame"] != want || !strings.HasSuffix(r.Text, "\n\n"+text) || fr["version"] != version(firstMain) {
				t.Errorf("step %d: frame %v, text %q", i+1, fr, r.Text)
			}
		default:
			t.Errorf("step %d: the refusal shows neither a listing nor a frame: %v", i+1, r.Structured)
		}
		if _, err := os.Stat(f.path("src/util.go")); err == nil && i == 0 {
			t.Errorf("step 1: a refused create made the file")
		}
	}
	if got := f.read(t, "src/main.go"); got != firstNew {
		t.Errorf("src/main.go = %q, want the overwrite", got)
	}
	if got := f.read(t, "src/helpers.go"); got != firstUtil {
		t.Errorf("src/helpers.go = %q, want the moved file", got)
	}
}

// version is the stet version of text.
func version(text string) string { return string(fsys.VersionOf([]byte(text))) }

// TestShownFrameBindsItsBytes: the observation a not_read refusal grants is
// of exactly the bytes it showed. A change made outside between the refusal
// and the retry is refused as changed, and nothing lands.
func TestShownFrameBindsItsBytes(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		tool string
		args map[string]any
	}{
		{"native edit", Options{Version: "test"}, "edit", map[string]any{"path": "a.txt", "old_string": "two", "new_string": "TWO"}},
		{"native write", Options{Version: "test"}, "write", map[string]any{"path": "a.txt", "content": "new\n", "overwrite": true}},
		{"native move", Options{Version: "test"}, "move", map[string]any{"from": "a.txt", "to": "b.txt"}},
		{"reference edit", Options{Version: "test", Profile: ProfileReference}, "edit_file", map[string]any{"path": "a.txt", "edits": []map[string]any{{"oldText": "two", "newText": "TWO"}}}},
		{"reference write", Options{Version: "test", Profile: ProfileReference}, "write_file", map[string]any{"path": "a.txt", "content": "new\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, map[string]string{"a.txt": "one\ntwo\n"}, stet.Options{})
			cs, _ := connect(t, New(f.ws, tc.opts), nil, nil)
			r := mustRefuse(t, "first call", call(t, cs, tc.tool, tc.args), stet.KindNotRead)
			fr, _ := r.Structured[stet.ShownFrame].(map[string]any)
			if fr == nil || fr["frame"] != wholeFrame([]byte("one\ntwo\n")) {
				t.Fatalf("refusal shows %v, want the frame of a.txt", r.Structured)
			}
			if got := f.read(t, "a.txt"); got != "one\ntwo\n" {
				t.Fatalf("the refusal changed a.txt: %q", got)
			}
			f.write(t, "a.txt", "one\ntwo\nthree\n") // changed outside
			mustRefuse(t, "retry after an outside change", call(t, cs, tc.tool, tc.args), stet.KindChanged)
			if got := f.read(t, "a.txt"); got != "one\ntwo\nthree\n" {
				t.Fatalf("a refused retry changed a.txt: %q", got)
			}
		})
	}
}

// TestShownOnlyWhatFits: a file over one default read window is not shown
// by the refusal, nor observed: the refusal says to read it, and a retry is
// refused again.
func TestShownOnlyWhatFits(t *testing.T) {
	big := strings.Repeat("line of text\n", frame.DefaultLimit+5)
	f := newFixture(t, map[string]string{"big.txt": big}, stet.Options{})
	cs, _ := connect(t, New(f.ws, Options{Version: "test"}), nil, nil)
	args := map[string]any{"path": "big.txt", "old_string": "line of text\n", "new_string": "", "replace_all": true}
	for i := range 2 {
		r := mustRefuse(t, "edit of a large unread file", call(t, cs, "edit", args), stet.KindNotRead)
		if r.Structured[stet.ShownFrame] != nil || !strings.Contains(r.Text, "read it first") || strings.Contains(r.Text, "00001|") {
			t.Fatalf("call %d: %s", i+1, r.Text)
		}
	}
}

// wholeFrame is the whole-file frame of text, as a read of all of it shows.
func wholeFrame(text []byte) string {
	w, err := frame.EncodeWindow(text, frame.Options{Limit: frame.LineCount(text) + 1, MaxBytes: len(text)*2 + 1024})
	if err != nil || !w.Whole {
		panic(fmt.Sprintf("wholeFrame: %v", err))
	}
	return w.Frame
}
