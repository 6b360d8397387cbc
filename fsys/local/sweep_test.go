package local_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/local"
	"github.com/stet-dev/stet/internal/fstree"
)

// deadPid is above the kernel's pid limit: never a running process.
const deadPid = 2147483600

func tempName(pid int, random string) string {
	return fmt.Sprintf("%s%d-%s", local.TempPrefix, pid, random)
}

func TestIsTempName(t *testing.T) {
	for _, c := range []struct {
		name string
		pid  int
		ok   bool
	}{
		{".stet-tmp-123-00000000deadbeef", 123, true},
		{".stet-tmp-1-0123456789abcdef", 1, true},
		{".stet-tmp-junk", 0, false},
		{".stet-tmp-", 0, false},
		{".stet-tmp-123", 0, false},
		{".stet-tmp-123-", 0, false},
		{".stet-tmp-123-deadbeef", 0, false},             // short random part
		{".stet-tmp-123-00000000DEADBEEF", 0, false},     // upper case
		{".stet-tmp-123-00000000deadbeef0", 0, false},    // long
		{".stet-tmp-123-00000000deadbeef.bak", 0, false}, // a user's copy
		{".stet-tmp-0123-00000000deadbeef", 0, false},    // leading zero
		{".stet-tmp-0-00000000deadbeef", 0, false},
		{".stet-tmp--1-00000000deadbeef", 0, false},
		{".stet-tmp-+1-00000000deadbeef", 0, false},
		{".stet-tmp-99999999999999999999-00000000deadbeef", 0, false},
		{"x.stet-tmp-123-00000000deadbeef", 0, false},
		{"a/.stet-tmp-123-00000000deadbeef", 0, false},
	} {
		pid, ok := local.IsTempName(c.name)
		if pid != c.pid || ok != c.ok {
			t.Errorf("IsTempName(%q) = %d, %v; want %d, %v", c.name, pid, ok, c.pid, c.ok)
		}
	}
}

// TestTempNamesAreExact checks that the names commits use are the exact
// format the sweep accepts: a leftover made by a killed commit is found.
func TestTempNamesAreExact(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "f"), []byte("old"), 0o644))
	var seen []string
	l := openRoot(t, dir, local.Options{Hooks: fsys.Hooks{BeforeSwap: func(string) {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			seen = append(seen, e.Name())
		}
	}}})
	if _, err := l.Replace("f", []byte("new"), fsys.Expected{Version: fsys.VersionOf([]byte("old"))}); err != nil {
		t.Fatal(err)
	}
	temps := 0
	for _, name := range seen {
		if pid, ok := local.IsTempName(name); ok && pid == os.Getpid() {
			temps++
		}
	}
	if temps != 1 {
		t.Fatalf("entries during a replace %q: want one temp name in the exact format", seen)
	}
}

func TestSweepRemovesOnlyItsOwn(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "ws")
	out := filepath.Join(base, "out")
	must(t, os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755))
	must(t, os.MkdirAll(filepath.Join(dir, ".git", "objects"), 0o755))
	must(t, os.MkdirAll(filepath.Join(dir, "secrets"), 0o755))
	must(t, os.Mkdir(out, 0o755))
	dead := tempName(deadPid, "00000000deadbeef")
	alive := tempName(os.Getpid(), "00000000cafebabe")
	users := []string{ // a user's files that only look like stet's
		".stet-tmp-junk", ".stet-tmp-" + fmt.Sprint(deadPid), tempName(deadPid, "deadbeef"),
		tempName(deadPid, "00000000DEADBEEF"), dead + ".bak", ".stet-tmp-0" + dead[len(".stet-tmp-"):],
	}
	var files []string
	for _, d := range []string{"", "a/", "a/b/"} {
		files = append(files, d+dead, d+alive)
		for _, u := range users {
			files = append(files, d+u)
		}
	}
	files = append(files, ".git/"+dead, ".git/objects/"+dead, "secrets/"+dead, "keep")
	for _, p := range files {
		must(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), []byte("x"), 0o644))
	}
	must(t, os.WriteFile(filepath.Join(out, dead), []byte("x"), 0o644))
	must(t, os.Symlink(out, filepath.Join(dir, "linked")))
	// Names in the exact format that are not regular files stay.
	must(t, os.Symlink("keep", filepath.Join(dir, tempName(deadPid, "0000000000000001"))))
	must(t, os.Mkdir(filepath.Join(dir, tempName(deadPid, "0000000000000002")), 0o755))
	if err := fstree.Mkfifo(filepath.Join(dir, tempName(deadPid, "0000000000000003"))); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		t.Fatal(err)
	}

	l := openRoot(t, dir, local.Options{})
	var asked []string
	n, err := l.Sweep(func(d string) bool {
		asked = append(asked, d)
		return d == ".git" || d == "secrets"
	})
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != base {
			rel, _ := filepath.Rel(base, p)
			if !d.IsDir() || d.Name() != rel {
				left = append(left, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	var want []string
	for _, p := range files {
		if filepath.Base(p) != dead || slices.Contains([]string{".git/" + dead, ".git/objects/" + dead, "secrets/" + dead}, p) {
			want = append(want, "ws/"+p)
		}
	}
	want = append(want, "out/"+dead, "ws/linked", "ws/a", "ws/a/b", "ws/.git", "ws/.git/objects", "ws/secrets",
		"ws/"+tempName(deadPid, "0000000000000001"), "ws/"+tempName(deadPid, "0000000000000002"), "ws/"+tempName(deadPid, "0000000000000003"))
	slices.Sort(want)
	slices.Sort(left)
	if n != 3 || !slices.Equal(left, want) {
		t.Errorf("sweep removed %d (want 3); left\n %q\nwant\n %q", n, left, want)
	}
	slices.Sort(asked)
	if wantAsked := []string{".", ".git", tempName(deadPid, "0000000000000002"), "a", "a/b", "secrets"}; !slices.Equal(asked, wantAsked) {
		t.Errorf("skip asked about %q, want %q", asked, wantAsked)
	}
}

// TestSweepReusedPid: a temp file named by a running process that started
// after the file got its name was left by an earlier process with the same
// pid, and goes; one named by a process that started before stays.
func TestSweepReusedPid(t *testing.T) {
	dir := t.TempDir()
	mine := tempName(os.Getpid(), "00000000cafebabe")
	must(t, os.WriteFile(filepath.Join(dir, mine), []byte("x"), 0o644))
	l := openRoot(t, dir, local.Options{})
	if n, err := l.Sweep(nil); err != nil || n != 0 {
		t.Fatalf("a live process's temp file: removed %d, %v", n, err)
	}
	local.SetProcessStart(l, func(pid int) (time.Time, bool) {
		return time.Now().Add(time.Hour), true // started after the file was named
	})
	if n, err := l.Sweep(nil); err != nil || n != 1 {
		t.Fatalf("a temp file older than the process with its pid: removed %d, %v; want 1", n, err)
	}
}

func TestProcessStart(t *testing.T) {
	start, ok := local.ProcessStart(os.Getpid())
	if !ok {
		t.Skip("no /proc here")
	}
	if now := time.Now(); start.After(now.Add(2*time.Second)) || start.Before(now.Add(-time.Hour)) {
		t.Fatalf("this process started at %v, now is %v", start, now)
	}
	if init, ok := local.ProcessStart(1); ok && init.After(start.Add(2*time.Second)) {
		t.Fatalf("pid 1 started at %v, after this process (%v)", init, start)
	}
	if _, ok := local.ProcessStart(deadPid); ok {
		t.Fatal("a start time for a pid that does not exist")
	}
}

func TestRemoveTemp(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "ws")
	must(t, os.MkdirAll(filepath.Join(dir, "a"), 0o755))
	name := tempName(os.Getpid(), "0123456789abcdef")
	must(t, os.WriteFile(filepath.Join(dir, "a", name), []byte("x"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "a", ".stet-tmp-notes"), []byte("x"), 0o644))
	must(t, os.WriteFile(filepath.Join(base, name), []byte("x"), 0o644))
	link := tempName(os.Getpid(), "0000000000000001")
	must(t, os.Symlink(name, filepath.Join(dir, "a", link)))
	l := openRoot(t, dir, local.Options{})

	for _, c := range []struct {
		name string
		kind error
	}{
		{"a/.stet-tmp-notes", fsys.ErrInvalid},
		{"a", fsys.ErrInvalid},
		{"a/" + link, fsys.ErrNotRegular},
		{"../" + name, fsys.ErrOutside},
		{"a/" + tempName(os.Getpid(), "00000000000000ff"), fsys.ErrNotFound},
	} {
		if err := l.RemoveTemp(c.name); !errors.Is(err, c.kind) {
			t.Errorf("RemoveTemp(%q) = %v, want %v", c.name, err, c.kind)
		}
	}
	if err := l.RemoveTemp("a/" + name); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "a", ".stet-tmp-notes"), filepath.Join(base, name), filepath.Join(dir, "a", link)} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "a", name)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("RemoveTemp left the temp file: %v", err)
	}
}

// A temp name the caller got from TempName and passed on is the very name
// the change writes through; a name the package would not make, or one
// already taken, fails and changes nothing.
func TestChosenTempName(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644))
	l := openRoot(t, dir, local.Options{})
	old := fsys.Expected{Version: fsys.VersionOf([]byte("one\n"))}

	temp := l.TempName()
	if _, ok := local.IsTempName(temp); !ok {
		t.Fatalf("TempName() = %q, not a temp name", temp)
	}
	var during error
	exp := old
	exp.Temp = temp
	exp.Ready = func() error {
		_, during = os.Lstat(filepath.Join(dir, temp))
		return nil
	}
	if _, err := l.Replace("a.txt", []byte("two\n"), exp); err != nil {
		t.Fatal(err)
	}
	if during != nil {
		t.Errorf("the replace did not write through %s: %v", temp, during)
	}
	two := fsys.Expected{Version: fsys.VersionOf([]byte("two\n"))}

	taken := l.TempName()
	must(t, os.WriteFile(filepath.Join(dir, taken), []byte("someone's\n"), 0o644))
	for _, c := range []struct {
		temp string
		kind error
	}{
		{".stet-tmp-notes", fsys.ErrInvalid},
		{"../" + l.TempName(), fsys.ErrInvalid},
		{taken, fsys.ErrExists},
	} {
		exp := two
		exp.Temp = c.temp
		if _, err := l.Replace("a.txt", []byte("three\n"), exp); !errors.Is(err, c.kind) {
			t.Errorf("Replace with temp %q = %v, want %v", c.temp, err, c.kind)
		}
		if _, err := l.Remove("a.txt", exp); !errors.Is(err, c.kind) {
			t.Errorf("Remove with temp %q = %v, want %v", c.temp, err, c.kind)
		}
		if _, err := l.CreateAs("b.txt", []byte("new\n"), 0, c.temp); !errors.Is(err, c.kind) {
			t.Errorf("CreateAs with temp %q = %v, want %v", c.temp, err, c.kind)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "two\n" {
		t.Errorf("a.txt = %q after refused changes", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, taken)); string(b) != "someone's\n" {
		t.Errorf("the file holding the taken name = %q", b)
	}
	if _, err := os.Lstat(filepath.Join(dir, "b.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("b.txt was created: %v", err)
	}
}
