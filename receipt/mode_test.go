package receipt

import (
	"io/fs"
	"testing"
)

func TestMode(t *testing.T) {
	for _, c := range []struct {
		m    fs.FileMode
		text string
	}{
		{0o644, "0644"},
		{0o600, "0600"},
		{0o755 | fs.ModeSetuid, "4755"},
		{0o2750&0o777 | fs.ModeSetgid, "2750"},
		{0o777 | fs.ModeSticky, "1777"},
		{0o700 | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky, "7700"},
		{0, "0000"},
	} {
		if got := FormatMode(c.m); got != c.text {
			t.Errorf("FormatMode(%v) = %q, want %q", c.m, got, c.text)
		}
		if got, err := ParseMode(c.text); err != nil || got != c.m {
			t.Errorf("ParseMode(%q) = %v, %v; want %v", c.text, got, err, c.m)
		}
	}
	for _, bad := range []string{"", "0o644", "8", "07777x", "17777", "-644", "+644"} {
		if m, err := ParseMode(bad); err == nil {
			t.Errorf("ParseMode(%q) = %v, want an error", bad, m)
		}
	}
}
