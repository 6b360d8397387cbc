package hook

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds every client's reader arbitrary events, seeded with the
// payloads of testdata: none may panic, and every answer is a reply the
// client reads (exit 0; no decision on an event that is not a call
// before it runs).
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(fixtures, "*", "*.json"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"a","old_string":null}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, c := range Clients {
			ev, err := c.parse(in)
			if err != nil {
				continue
			}
			r := c.reply(ev, Answer{Deny: "refused: x"})
			if r.Code != 0 {
				t.Fatalf("%s: exit %d", c.Name, r.Code)
			}
			if ev.Kind == BeforeChange && len(ev.Changes) == 0 {
				t.Fatalf("%s: a change with nothing to change: %+v", c.Name, ev)
			}
		}
	})
}
