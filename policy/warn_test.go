package policy

import (
	"strings"
	"testing"
)

func TestAlarm(t *testing.T) {
	ten := strings.Repeat("row\n", 10)
	tests := []struct {
		name          string
		before, after string
		want          bool
	}{
		{"a.go", ten, "row\nrow\n", true},       // 10 → 2 lines: shrank by 80%
		{"a.go", ten, "row\nrow\nrow\n", false}, // 10 → 3: by 70%
		{"a.go", ten, "", true},                 // emptied
		{"a.go", "one line", "", true},          // 1 → 0
		{"a.go", "", "new\n", false},            // grew
		{"a.go", "x\ny\n", "z\ny\n", false},     // first line changed, but not a header kind
		{"data.csv", "id,name\n1,a\n", "id,name\n2,b\n", false},
		{"data.csv", "id,name\n1,a\n", "ID,Name\n1,a\n", true},
		{"data.CSV", "id,name\n1,a\n", "name\n1,a\n", true}, // extension in any case
		{"notes.md", "# Title\r\nx\r\n", "# Title\nx\n", false},
		{"cfg.yml", "a: 1\nb: 2\n", "b: 2\na: 1\n", true},
		{"cfg.toml", "x", "y", true},
		{"x.ini", "[s]\na=1\n", "[s]\na=2\n", false},
		{"log.jsonl", "{}\n{}\n", "{\"a\":1}\n{}\n", true},
		{"README", "x\n", "y\n", false},
	}
	for _, tt := range tests {
		if got := Alarm(tt.name, []byte(tt.before), []byte(tt.after)); got != tt.want {
			t.Errorf("Alarm(%q, %q, %q) = %v, want %v", tt.name, tt.before, tt.after, got, tt.want)
		}
	}
}

func TestMessages(t *testing.T) {
	tests := []struct{ got, want string }{
		{ReplacedMessage("data/sales.csv", "2,402 lines → 10", false),
			"replaced the user's file data/sales.csv (2,402 lines → 10); previous content saved — undo brings it back"},
		{ReplacedMessage("data/sales.csv", "2,402 lines → 10", true),
			"⚠ replaced the user's file data/sales.csv (2,402 lines → 10); previous content saved — undo brings it back"},
		{DeletedMessage("notes.md", "12 lines"),
			"deleted the user's file notes.md (12 lines); previous content saved — undo brings it back"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got  %q\nwant %q", tt.got, tt.want)
		}
	}
}
