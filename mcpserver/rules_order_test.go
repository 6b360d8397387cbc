package mcpserver

import (
	"testing"

	"github.com/stet-dev/stet"
)

// The reference profile's tools reach the same rules as stet's own (the
// facade decides them in one place): each situation is refused with the
// same kind by write_file, edit_file and move_file, and the file keeps its
// bytes.
func TestRefRuleOrderAcrossTools(t *testing.T) {
	tools := map[string]func(p string) map[string]any{
		"write_file": func(p string) map[string]any { return map[string]any{"path": p, "content": "new\n"} },
		"edit_file": func(p string) map[string]any {
			return map[string]any{"path": p, "edits": []any{map[string]any{"oldText": "hello", "newText": "HELLO"}}}
		},
		"move_file": func(p string) map[string]any { return map[string]any{"source": p, "destination": "d/moved.txt"} },
		// move_file never replaces a file: onto one it is refused exists.
		"move_file to": func(p string) map[string]any { return map[string]any{"source": "d/src.txt", "destination": p} },
	}
	cases := []struct {
		name   string
		create bool // the call makes n/new.txt (write_file, and move_file to it)
		setup  func(t *testing.T, f *fixture, do func(tool string, args map[string]any) result)
		kind   string
	}{
		{name: "never read", kind: stet.KindNotRead},
		{name: "changed since read", kind: stet.KindChanged, setup: func(t *testing.T, f *fixture, do func(string, map[string]any) result) {
			mustOK(t, "read", do("read_text_file", map[string]any{"path": "d/t.txt"}))
			f.write(t, "d/t.txt", "hello, changed\n")
		}},
		{name: "dir never listed", create: true, kind: stet.KindNotRead},
	}
	for _, c := range cases {
		for name, args := range tools {
			creates := name == "write_file" || name == "move_file to"
			changes := name != "move_file to"
			if c.create && !creates || !c.create && !changes {
				continue
			}
			t.Run(c.name+"/"+name, func(t *testing.T) {
				f := newFixture(t, map[string]string{"d/t.txt": "hello\n", "d/src.txt": "src\n", "n/other.txt": "other\n"}, stet.Options{})
				cs, _ := connect(t, New(f.ws, Options{Version: "test", Profile: ProfileReference}), nil, nil)
				do := func(tool string, a map[string]any) result { return call(t, cs, tool, a) }
				mustOK(t, "read d/src.txt", do("read_text_file", map[string]any{"path": "d/src.txt"}))
				if c.setup != nil {
					c.setup(t, f, do)
				}
				before := f.read(t, "d/t.txt")
				p := "d/t.txt"
				if c.create {
					p = "n/new.txt"
				}
				tool, a := name, args(p)
				if name == "move_file to" {
					tool = "move_file"
				}
				mustRefuse(t, name+" "+p, do(tool, a), c.kind)
				if got := f.read(t, "d/t.txt"); got != before {
					t.Errorf("d/t.txt = %q after the refused %s, want %q", got, name, before)
				}
			})
		}
	}
}
