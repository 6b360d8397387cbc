package ignore

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWildmatch(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{"*.go", "a.go", true},
		{"*.go", "a/b.go", false},
		{"a/*.go", "a/b.go", true},
		{"a/*.go", "a/b/c.go", false},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/xb", false},
		{"**/b", "b", true},
		{"**/b", "x/y/b", true},
		{"a/**", "a/x", true},
		{"a/**", "a", false},
		{"a**b", "axxb", true},
		{"a**b", "ax/xb", false},
		{"?.go", "a.go", true},
		{"?.go", "/.go", false},
		{"[abc].txt", "b.txt", true},
		{"[!abc].txt", "b.txt", false},
		{"[^abc].txt", "d.txt", true},
		{"[a-c]x", "bx", true},
		{"[a-c]x", "dx", false},
		{"[]]x", "]x", true},
		{"[[:digit:]]*", "1abc", true},
		{"[[:digit:]]*", "abc", false},
		{"[[:bogus:]]", "a", false},
		{"[abc", "a", false},
		{"\\*x", "*x", true},
		{"\\*x", "ax", false},
		{"trail\\ ", "trail ", true},
		{"a\\", "a", false},
	} {
		if got := Wildmatch(c.pattern, c.name); got != c.want {
			t.Errorf("Wildmatch(%q, %q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
	}
}

func TestStack(t *testing.T) {
	s := Stack{}.Push(Parse("", []byte("# comment\n*.log\n!keep.log\nbuild/\n/top\n\\!bang\n\\#hash\nsp\\ \nsp2   \r\n")))
	s = s.Push(Parse("sub", []byte("!x.log\n/anch\n")))
	for _, c := range []struct {
		rel   string
		isDir bool
		want  bool
	}{
		{"a.log", false, true},
		{"d/a.log", false, true},
		{"keep.log", false, false},
		{"build", true, true},
		{"build", false, false},
		{"d/build", true, true},
		{"top", false, true},
		{"d/top", false, false},
		{"!bang", false, true},
		{"#hash", false, true},
		{"# comment", false, false},
		{"sp ", false, true},
		{"sp2", false, true},
		{"sub/x.log", false, false},
		{"x.log", false, true},
		{"sub/anch", false, true},
		{"anch", false, false},
		{"sub/d/anch", false, false},
	} {
		if got := s.Ignored(c.rel, c.isDir); got != c.want {
			t.Errorf("Ignored(%q, dir %v) = %v, want %v", c.rel, c.isDir, got, c.want)
		}
	}
}

func TestGlobalExcludesPath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	if got, want := GlobalExcludesPath(), filepath.Join(home, ".config", "git", "ignore"); got != want {
		t.Fatalf("default: %q, want %q", got, want)
	}
	cfg := "[user]\n\tname = x\n[Core]\n\tExcludesFile = ~/my-ignore ; a comment\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := GlobalExcludesPath(), filepath.Join(home, "my-ignore"); got != want {
		t.Fatalf("core.excludesFile: %q, want %q", got, want)
	}
	if err := os.WriteFile(filepath.Join(home, "my-ignore"), []byte("*.bak\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if l := GlobalExcludes(); !(Stack{l}).Ignored("a/b.bak", false) {
		t.Fatal("the global excludes file was not read")
	}
}

func FuzzWildmatch(f *testing.F) {
	f.Add("a/**/b[!x]*", "a/c/by")
	f.Fuzz(func(t *testing.T, pattern, name string) {
		_ = Wildmatch(pattern, name) // must not panic or hang
	})
}

// TestWildmatchManyStars: a pattern of many stars against a long name that
// it does not match ends (git's aborts keep it from trying every split).
func TestWildmatchManyStars(t *testing.T) {
	name := ""
	for range 200 {
		name += "a"
	}
	if Wildmatch("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", name) {
		t.Fatal("matched")
	}
	if Wildmatch("**/*a*a*a*a*a*a*a*a*a*a*a*a*b", "x/y/"+name) {
		t.Fatal("matched")
	}
}
