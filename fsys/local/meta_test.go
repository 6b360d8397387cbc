//go:build unix

package local_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/local"
)

// setxattr sets a user xattr on p, skipping the test where the filesystem
// has none.
func setxattr(t *testing.T, p, name, value string) {
	t.Helper()
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("extended attributes are kept on Linux and macOS only")
	}
	if err := unix.Setxattr(p, name, []byte(value), 0); err != nil {
		if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EOPNOTSUPP) {
			t.Skipf("extended attributes unsupported here: %v", err)
		}
		t.Fatal(err)
	}
}

func getxattr(p, name string) (string, error) {
	b := make([]byte, 256)
	n, err := unix.Getxattr(p, name, b)
	if err != nil {
		return "", err
	}
	return string(b[:n]), nil
}

func TestReplaceKeepsXattrs(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	must(t, os.WriteFile(p, []byte("old"), 0o644))
	setxattr(t, p, "user.stet.origin", "downloaded")
	setxattr(t, p, "user.empty", "")
	l := openRoot(t, dir, local.Options{})
	if _, err := l.Replace("f", []byte("new"), fsys.Expected{Version: fsys.VersionOf([]byte("old"))}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Fatalf("bytes %q", b)
	}
	for name, want := range map[string]string{"user.stet.origin": "downloaded", "user.empty": ""} {
		if got, err := getxattr(p, name); err != nil || got != want {
			t.Errorf("xattr %s after replace: %q, %v; want %q", name, got, err, want)
		}
	}
}

func TestReplaceKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("changing a file's owner to another user needs root")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	must(t, os.WriteFile(p, []byte("old"), 0o644))
	must(t, os.Chown(p, 1234, 5678))
	// chown clears setuid and setgid: set them after, as a user would.
	must(t, os.Chmod(p, 0o755|os.ModeSetuid|os.ModeSetgid))
	l := openRoot(t, dir, local.Options{})
	cm, err := l.Replace("f", []byte("new"), fsys.Expected{Version: fsys.VersionOf([]byte("old"))})
	if err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	must(t, syscall.Stat(p, &st))
	if st.Uid != 1234 || st.Gid != 5678 {
		t.Errorf("owner after replace %d:%d, want 1234:5678", st.Uid, st.Gid)
	}
	if st.Mode&0o7777 != 0o6755 {
		t.Errorf("mode after replace %o, want 6755", st.Mode&0o7777)
	}
	if len(cm.Notes) != 0 {
		t.Errorf("notes %q", cm.Notes)
	}
}

func TestCreateIgnoresUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	t.Cleanup(func() { syscall.Umask(old) })
	dir := t.TempDir()
	l := openRoot(t, dir, local.Options{})
	if _, err := l.Create("run.sh", []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "run.sh"))
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("mode of a file created with 0755 under umask 077: %v, %v", fi.Mode(), err)
	}
	// Perm 0 is a new file like any other: 0644 under the umask.
	if _, err := l.Create("new", []byte("x"), 0); err != nil {
		t.Fatal(err)
	}
	fi, err = os.Stat(filepath.Join(dir, "new"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode of a default file under umask 077: %v, %v", fi.Mode(), err)
	}
}
