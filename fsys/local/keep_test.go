//go:build unix

package local_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/local"
	"github.com/stet-dev/stet/journal"
)

// store is a journal whose object store receives displaced files.
type store struct {
	t     testing.TB
	dir   string
	j     *journal.Journal
	saves int // copies made by Keep.Save
}

func newStore(t testing.TB, dir string) *store {
	j, err := journal.Open(dir, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return &store{t: t, dir: dir, j: j}
}

// keep is the fsys.Keep that hands a displaced file holding old to the
// store, as the commit sequence builds it; done releases it.
func (s *store) keep(old []byte) (k fsys.Keep, done func()) {
	a, err := s.j.Adopt(string(fsys.VersionOf(old)), int64(len(old)))
	if err != nil {
		s.t.Fatal(err)
	}
	save := func() error { s.saves++; _, err := s.j.Put(old); return err }
	return fsys.Keep{Dir: a.Dir(), Name: a.Name(), Adopt: a.Take, Save: save}, func() { a.Close() }
}

// blob returns the path of the blob holding data.
func (s *store) blob(data []byte) string {
	h := strings.TrimPrefix(string(fsys.VersionOf(data)), "sha256:")
	return filepath.Join(s.dir, "objects", h[:2], h[2:])
}

// has checks that the store holds data.
func (s *store) has(data []byte) {
	s.t.Helper()
	got, err := s.j.Get(string(fsys.VersionOf(data)))
	if err != nil || !bytes.Equal(got, data) {
		s.t.Fatalf("the store does not hold the old bytes: %d bytes, %v", len(got), err)
	}
}

func inode(t testing.TB, name string) uint64 {
	t.Helper()
	fi, err := os.Lstat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// onlyFiles fails unless dir holds exactly names (no temp file left).
func onlyFiles(t testing.TB, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Fatalf("%s holds %q, want %q", dir, got, names)
	}
}

// setup makes a root holding f = old (mode 0640) and a store beside it on
// the same filesystem.
func setup(t *testing.T, old []byte, o local.Options) (*local.FS, string, *store) {
	base := t.TempDir()
	dir := filepath.Join(base, "root")
	must(t, os.Mkdir(dir, 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "f"), old, 0o640))
	must(t, os.Chmod(filepath.Join(dir, "f"), 0o640))
	l, err := local.Open(dir, o)
	must(t, err)
	t.Cleanup(func() { l.Close() })
	return l, dir, newStore(t, filepath.Join(base, "state"))
}

func TestReplaceKeepAdoptsTheOldFile(t *testing.T) {
	old, next := []byte("old bytes\n"), []byte("new bytes, longer\n")
	l, dir, s := setup(t, old, local.Options{})
	was := inode(t, filepath.Join(dir, "f"))
	k, done := s.keep(old)
	defer done()
	_, kept, err := l.ReplaceKeep("f", next, fsys.Expected{Version: fsys.VersionOf(old), Bytes: old}, k)
	must(t, err)
	if !kept.Adopted || kept.Saved {
		t.Fatalf("kept = %+v, want adopted, not copied", kept)
	}
	got, err := os.ReadFile(filepath.Join(dir, "f"))
	must(t, err)
	if !bytes.Equal(got, next) {
		t.Fatalf("f holds %q", got)
	}
	fi, err := os.Stat(filepath.Join(dir, "f"))
	must(t, err)
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("the new file's mode is %v, want the old one's 0640", fi.Mode().Perm())
	}
	s.has(old)
	if inode(t, s.blob(old)) != was {
		t.Error("the blob is a copy: its inode is not the old file's")
	}
	if s.saves != 0 {
		t.Errorf("%d copies made", s.saves)
	}
	onlyFiles(t, dir, "f")
}

func TestRemoveKeepAdoptsTheFile(t *testing.T) {
	old := []byte("to be deleted\n")
	l, dir, s := setup(t, old, local.Options{})
	was := inode(t, filepath.Join(dir, "f"))
	k, done := s.keep(old)
	defer done()
	_, kept, err := l.RemoveKeep("f", fsys.Expected{Version: fsys.VersionOf(old), Bytes: old}, k)
	must(t, err)
	if !kept.Adopted {
		t.Fatalf("kept = %+v, want adopted", kept)
	}
	s.has(old)
	if inode(t, s.blob(old)) != was {
		t.Error("the blob is a copy: its inode is not the removed file's")
	}
	onlyFiles(t, dir)
}

// The other links of a file with several keep the old bytes and mode, so
// the store cannot own that file: it gets a copy.
func TestReplaceKeepCopiesAFileWithHardLinks(t *testing.T) {
	old, next := []byte("shared\n"), []byte("replaced\n")
	l, dir, s := setup(t, old, local.Options{})
	must(t, os.Link(filepath.Join(dir, "f"), filepath.Join(dir, "g")))
	k, done := s.keep(old)
	defer done()
	cm, kept, err := l.ReplaceKeep("f", next, fsys.Expected{Version: fsys.VersionOf(old), Bytes: old}, k)
	must(t, err)
	if kept.Adopted || !kept.Saved || !strings.Contains(kept.Why, "hard links") {
		t.Fatalf("kept = %+v, want a copy because of the hard links", kept)
	}
	if len(cm.Notes) == 0 {
		t.Error("no note about the split hard link")
	}
	s.has(old)
	got, err := os.ReadFile(filepath.Join(dir, "g"))
	must(t, err)
	fi, err := os.Stat(filepath.Join(dir, "g"))
	must(t, err)
	if !bytes.Equal(got, old) || fi.Mode().Perm() != 0o640 {
		t.Errorf("the other link holds %q mode %v, want the old bytes, 0640", got, fi.Mode().Perm())
	}
	if inode(t, s.blob(old)) == inode(t, filepath.Join(dir, "g")) {
		t.Error("the store adopted a file another link still names")
	}
	onlyFiles(t, dir, "f", "g")
}

// A store on another filesystem gets a copy.
func TestReplaceKeepCopiesAcrossFilesystems(t *testing.T) {
	old, next := []byte("old\n"), []byte("new\n")
	l, dir, _ := setup(t, old, local.Options{})
	other, err := os.MkdirTemp("/dev/shm", "stet-keep-")
	if err != nil {
		t.Skipf("no second filesystem: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(other) })
	var a, b syscall.Stat_t
	must(t, syscall.Stat(dir, &a))
	must(t, syscall.Stat(other, &b))
	if a.Dev == b.Dev {
		t.Skip("/dev/shm is on the test's filesystem")
	}
	s := newStore(t, other)
	k, done := s.keep(old)
	defer done()
	_, kept, err := l.ReplaceKeep("f", next, fsys.Expected{Version: fsys.VersionOf(old), Bytes: old}, k)
	must(t, err)
	if kept.Adopted || !kept.Saved || !strings.Contains(kept.Why, "another filesystem") {
		t.Fatalf("kept = %+v, want a copy to another filesystem", kept)
	}
	s.has(old)
	onlyFiles(t, dir, "f")
}

// Without an exchange the rename over the file drops the old one: the copy
// is made before it.
func TestReplaceKeepWithoutExchangeCopiesFirst(t *testing.T) {
	old, next := []byte("old\n"), []byte("new\n")
	l, dir, s := setup(t, old, local.Options{NoExchange: true})
	k, done := s.keep(old)
	defer done()
	k.Save = func() error {
		got, err := os.ReadFile(filepath.Join(dir, "f"))
		if err != nil || !bytes.Equal(got, old) {
			t.Errorf("Save ran after the old bytes left the file: %q, %v", got, err)
		}
		_, err = s.j.Put(old)
		return err
	}
	_, kept, err := l.ReplaceKeep("f", next, fsys.Expected{Version: fsys.VersionOf(old), Bytes: old}, k)
	must(t, err)
	if kept.Adopted || !kept.Saved {
		t.Fatalf("kept = %+v, want a copy", kept)
	}
	s.has(old)
	onlyFiles(t, dir, "f")
}

// A conflict keeps everything as it was and adopts nothing.
func TestReplaceKeepConflict(t *testing.T) {
	old, next := []byte("old\n"), []byte("new\n")
	l, dir, s := setup(t, old, local.Options{})
	stale := []byte("what the session read earlier\n")
	k, done := s.keep(stale)
	defer done()
	_, kept, err := l.ReplaceKeep("f", next, fsys.Expected{Version: fsys.VersionOf(stale), Bytes: stale}, k)
	if !errors.Is(err, fsys.ErrConflict) {
		t.Fatalf("err = %v, want a conflict", err)
	}
	if kept.Adopted || kept.Saved {
		t.Errorf("kept = %+v after a conflict", kept)
	}
	got, err := os.ReadFile(filepath.Join(dir, "f"))
	must(t, err)
	if !bytes.Equal(got, old) {
		t.Errorf("f holds %q after a conflict", got)
	}
	if _, err := s.j.Get(string(fsys.VersionOf(old))); !errors.Is(err, journal.ErrNotFound) {
		t.Errorf("the store holds the file's bytes after a conflict: %v", err)
	}
	onlyFiles(t, dir, "f")
}

// A store that refuses the file gets a copy; nothing is left beside the file.
func TestReplaceKeepAdoptRefused(t *testing.T) {
	old, next := []byte("old\n"), []byte("new\n")
	l, dir, s := setup(t, old, local.Options{})
	k, done := s.keep(old)
	defer done()
	k.Adopt = func(os.FileInfo) error { return errors.New("no room") }
	_, kept, err := l.ReplaceKeep("f", next, fsys.Expected{Version: fsys.VersionOf(old), Bytes: old}, k)
	must(t, err)
	if kept.Adopted || !kept.Saved || !strings.Contains(kept.Why, "no room") {
		t.Fatalf("kept = %+v, want a copy after the refusal", kept)
	}
	s.has(old)
	onlyFiles(t, dir, "f")
}

// A copy that fails after the exchange keeps the displaced file and says
// where.
func TestReplaceKeepSaveFailsKeepsTheTemp(t *testing.T) {
	old, next := []byte("old\n"), []byte("new\n")
	l, dir, s := setup(t, old, local.Options{})
	k, done := s.keep(old)
	defer done()
	k.Dir = nil // ruled out before the swap: the copy is made first
	k.Save = func() error { return errors.New("disk full") }
	_, _, err := l.ReplaceKeep("f", next, fsys.Expected{Version: fsys.VersionOf(old), Bytes: old}, k)
	if err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("err = %v, want the copy's failure before anything moved", err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "f"))
	if !bytes.Equal(got, old) {
		t.Errorf("f holds %q", got)
	}
	onlyFiles(t, dir, "f")

	k, done2 := s.keep(old)
	defer done2()
	k.Adopt = func(os.FileInfo) error { return errors.New("refused") }
	k.Save = func() error { return errors.New("disk full") }
	_, _, err = l.ReplaceKeep("f", next, fsys.Expected{Version: fsys.VersionOf(old), Bytes: old}, k)
	if err == nil || !strings.Contains(err.Error(), "kept as") {
		t.Fatalf("err = %v, want where the old bytes are kept", err)
	}
}

func TestAdoptTemp(t *testing.T) {
	old := []byte("displaced by a process that died\n")
	l, dir, s := setup(t, old, local.Options{})
	tmp := l.TempName()
	must(t, os.WriteFile(filepath.Join(dir, tmp), old, 0o640))
	was := inode(t, filepath.Join(dir, tmp))

	other := []byte("someone else's\n")
	k, done := s.keep(other)
	defer done()
	if _, err := l.AdoptTemp(tmp, fsys.Expected{Version: fsys.VersionOf(other)}, k); !errors.Is(err, fsys.ErrConflict) {
		t.Fatalf("AdoptTemp of a file holding other bytes: %v, want a conflict", err)
	}
	onlyFiles(t, dir, tmp, "f")

	k, done2 := s.keep(old)
	defer done2()
	kept, err := l.AdoptTemp(tmp, fsys.Expected{Version: fsys.VersionOf(old)}, k)
	must(t, err)
	if !kept.Adopted {
		t.Fatalf("kept = %+v", kept)
	}
	s.has(old)
	if inode(t, s.blob(old)) != was {
		t.Error("the blob is a copy")
	}
	onlyFiles(t, dir, "f")
	if _, err := l.AdoptTemp(tmp, fsys.Expected{Version: fsys.VersionOf(old)}, k); !errors.Is(err, fsys.ErrNotFound) {
		t.Errorf("AdoptTemp of a gone file: %v, want not found", err)
	}
	if _, err := l.AdoptTemp("f", fsys.Expected{Version: fsys.VersionOf(old)}, k); !errors.Is(err, fsys.ErrInvalid) {
		t.Errorf("AdoptTemp of a user's file: %v, want invalid", err)
	}
}

// The sweep keeps a dead process's temp file that the caller names.
func TestSweepKeepsNamedTemps(t *testing.T) {
	dir := t.TempDir()
	l, err := local.Open(dir, local.Options{})
	must(t, err)
	defer l.Close()
	const dead = local.TempPrefix + "2147483646-00000000000000aa"
	const other = local.TempPrefix + "2147483646-00000000000000bb"
	must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	for _, name := range []string{dead, "sub/" + dead, other} {
		must(t, os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600))
	}
	keep := func(name string) bool { return name == dead || name == "sub/"+dead }
	n, err := l.SweepKeeping(nil, keep)
	must(t, err)
	if n != 1 {
		t.Errorf("swept %d, want 1", n)
	}
	onlyFiles(t, dir, dead, "sub")
	onlyFiles(t, filepath.Join(dir, "sub"), dead)
	n, err = l.SweepDirKeeping("sub", func(string) bool { return false })
	must(t, err)
	if n != 1 {
		t.Errorf("swept %d in sub, want 1", n)
	}
}
