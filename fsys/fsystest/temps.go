package fsystest

import (
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/internal/tempname"
)

// deadPID is above every kernel's process id limit: a temp file named with
// it was left by a process that is gone.
const deadPID = 2147483600

// plantedTemp is the name of a temp file a test leaves as a process that
// died mid-commit would (pid deadPID), or as one still running would (the
// pid of the backend's own temp names).
func plantedTemp(pid int, random string) string {
	return fmt.Sprintf("%s%d-%s", tempname.Prefix, pid, random)
}

// ownPID is the process id in p's temp names.
func ownPID(t *testing.T, p fsys.TempFiler) int {
	t.Helper()
	name := p.TempName()
	pid, ok := tempname.Parse(name)
	if !ok {
		t.Fatalf("TempName() = %q, not a temp name", name)
	}
	return pid
}

// testTempFiles checks fsys.TempFiler: a change writes through the temp
// name the caller chose; a name the backend would not make, or a taken
// one, is refused and changes nothing; RemoveTemp removes exactly the temp
// file it is given.
func testTempFiles(t *testing.T, mk func(t *testing.T) Harness) {
	start := func(t *testing.T) (*env, fsys.TempFiler) {
		e := newEnv(t, mk, "f=old", "g=gone", "a/", "a/real=x", "a/.stet-tmp-notes=mine")
		tp, ok := e.p.(fsys.TempFiler)
		if !ok {
			t.Skip("not a TempFiler")
		}
		return e, tp
	}
	t.Run("chosen names", func(t *testing.T) { testChosenTemps(start(t)) })
	t.Run("refused names", func(t *testing.T) { testRefusedTemps(start(t)) })
	t.Run("RemoveTemp", func(t *testing.T) { testRemoveTemp(start(t)) })
}

// testChosenTemps: changes write through the temp names the caller chose.
func testChosenTemps(e *env, tp fsys.TempFiler) {
	t := e.t
	exp := expect("old")
	exp.Temp = tp.TempName()
	wantKind(t, "replace", second(e.p.Replace("f", []byte("new"), exp)), nil)
	exp = expect("gone")
	exp.Temp = tp.TempName()
	wantKind(t, "remove", second(e.p.Remove("g", exp)), nil)
	wantKind(t, "create as", second(tp.CreateAs("a/h", []byte("made"), 0o644, tp.TempName())), nil)
	e.wantTree("chosen temp names", []string{"f=new", "a/", "a/real=x", "a/.stet-tmp-notes=mine", "a/h=made"})
}

// testRefusedTemps: a temp name the backend would not make, or a taken
// one, is refused and changes nothing.
func testRefusedTemps(e *env, tp fsys.TempFiler) {
	t := e.t
	before := e.tree()
	taken := plantedTemp(ownPID(t, tp), "00000000cafebabe")
	if err := e.h.WriteFile(taken, []byte("someone's"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		temp string
		kind error
	}{{".stet-tmp-notes", fsys.ErrInvalid}, {"../" + tp.TempName(), fsys.ErrInvalid}, {taken, fsys.ErrExists}} {
		exp := expect("old")
		exp.Temp = c.temp
		wantKind(t, "replace with temp "+c.temp, second(e.p.Replace("f", []byte("new"), exp)), c.kind)
		wantKind(t, "create as "+c.temp, second(tp.CreateAs("k", []byte("made"), 0o644, c.temp)), c.kind)
		if c.kind == fsys.ErrInvalid { // a remove that needs no temp name (a fallback) may ignore a taken one
			wantKind(t, "remove with temp "+c.temp, second(e.p.Remove("f", exp)), c.kind)
		}
	}
	wantKind(t, "remove temp", tp.RemoveTemp(taken), nil)
	e.wantTree("refused temp names", before)
}

// testRemoveTemp: RemoveTemp removes exactly the temp file it is given.
func testRemoveTemp(e *env, tp fsys.TempFiler) {
	t := e.t
	pid := ownPID(t, tp)
	name, link := plantedTemp(pid, "0123456789abcdef"), plantedTemp(pid, "0000000000000001")
	Build(t, e.h, "a/"+name+"=left", "a/"+link+" => real", "la => a")
	before := e.tree()
	for _, c := range []struct {
		name string
		kind error
	}{
		{"a/.stet-tmp-notes", fsys.ErrInvalid},
		{"a", fsys.ErrInvalid},
		{"a/" + link, fsys.ErrNotRegular},
		{"../" + name, fsys.ErrOutside},
		{"a/real/" + name, fsys.ErrNotDir},
		{"missing/" + name, fsys.ErrNotFound},
		{"a/" + plantedTemp(pid, "00000000000000ff"), fsys.ErrNotFound},
	} {
		wantKind(t, "RemoveTemp("+c.name+")", tp.RemoveTemp(c.name), c.kind)
	}
	if got := e.tree(); !slices.Equal(got, before) {
		t.Fatalf("refused RemoveTemp calls changed the tree:\n got  %q\n want %q", got, before)
	}
	wantKind(t, "RemoveTemp through a link", tp.RemoveTemp("la/"+name), nil)
	wantKind(t, "RemoveTemp of a link", e.h.RemoveAll("a/"+link), nil)
	e.wantTree("RemoveTemp", slices.DeleteFunc(before, func(l string) bool { return strings.Contains(l, ".stet-tmp-") && !strings.Contains(l, "notes") }))
}

// testSweep checks fsys.Sweeper and fsys.DirSweeper: only regular files
// named exactly as temp files, whose maker is gone, are removed; symlinks
// are not followed; skipped directories are not read; a user's files that
// only look like temp files stay.
func testSweep(t *testing.T, mk func(t *testing.T) Harness) {
	h := mk(t)
	probe := h.Open(fsys.Hooks{})
	tp, ok := probe.(fsys.TempFiler)
	_, sw := probe.(fsys.Sweeper)
	_, dsw := probe.(fsys.DirSweeper)
	if !ok || !sw || !dsw {
		t.Skip("not a TempFiler, Sweeper and DirSweeper")
	}
	dead, alive := plantedTemp(deadPID, "00000000deadbeef"), plantedTemp(ownPID(t, tp), "00000000cafebabe")
	users := []string{".stet-tmp-junk", plantedTemp(deadPID, "deadbeef"), plantedTemp(deadPID, "00000000DEADBEEF"), dead + ".bak"}
	var fs []string
	for _, d := range []string{"", "a/", "a/b/"} {
		fs = append(fs, d+dead+"=x", d+alive+"=x")
		for _, u := range users {
			fs = append(fs, d+u+"=x")
		}
	}
	fs = append(fs, ".git/objects/"+dead+"=x", "secrets/"+dead+"=x", "la => a",
		plantedTemp(deadPID, "0000000000000001")+" => a/"+dead, plantedTemp(deadPID, "0000000000000002")+"/")
	Build(t, h, fs...)
	e := newEnvOn(t, h, fsys.Hooks{})
	before := e.tree()
	var asked []string
	n, err := fsys.Sweep(e.p, func(d string) bool {
		asked = append(asked, d)
		return d == ".git" || d == "secrets"
	})
	wantKind(t, "sweep", err, nil)
	swept := slices.DeleteFunc(slices.Clone(before), func(l string) bool {
		return slices.Contains([]string{dead + "=x", "a/" + dead + "=x", "a/b/" + dead + "=x"}, l)
	})
	if got := e.tree(); n != 3 || !slices.Equal(got, swept) {
		t.Fatalf("sweep removed %d (want 3), left\n %q\nwant\n %q", n, got, swept)
	}
	slices.Sort(asked)
	if want := []string{".", ".git", plantedTemp(deadPID, "0000000000000002"), "a", "a/b", "secrets"}; !slices.Equal(asked, want) {
		t.Errorf("skip asked about %q, want %q", asked, want)
	}
	testSweepDir(t, e, dead)
}

func testSweepDir(t *testing.T, e *env, dead string) {
	Build(t, e.h, "a/"+dead+"=x", "a/b/"+dead+"=x", "lo => ../outside", "f=x")
	for _, c := range []struct {
		dir     string
		removed int
		kind    error
	}{
		{"la", 1, nil}, // a, reached through the link, not a/b
		{"a", 0, nil},
		{"a/b", 1, nil},
		{"missing", 0, fsys.ErrNotFound},
		{"f", 0, fsys.ErrNotDir},
		{"lo", 0, fsys.ErrOutside},
	} {
		n, err := fsys.SweepDir(e.p, c.dir)
		wantKind(t, "SweepDir("+c.dir+")", err, c.kind)
		if n != c.removed {
			t.Errorf("SweepDir(%s) removed %d, want %d", c.dir, n, c.removed)
		}
	}
	e.settleWithout(func(name string) bool { return strings.HasPrefix(path.Base(name), tempname.Prefix) })
}

// settleWithout removes (raw) every entry whose name drop accepts, then
// settles: for the files a test planted that look like temp files.
func (e *env) settleWithout(drop func(name string) bool) {
	e.t.Helper()
	for _, l := range e.tree() {
		name := entryName(l)
		if drop(name) {
			if err := e.h.RemoveAll(name); err != nil {
				e.t.Fatalf("remove %s: %v", name, err)
			}
		}
	}
	e.settle("after removing planted files")
}

func readAll(t *testing.T, r io.Reader) string {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// entryName is the path of one line of Tree.
func entryName(line string) string {
	if name, _, ok := strings.Cut(line, " => "); ok {
		return name
	}
	if name, _, ok := strings.Cut(line, "="); ok {
		return name
	}
	return strings.TrimSuffix(strings.TrimSuffix(line, "/"), "|")
}

// testOpenDir checks fsys.OpenDir, the backend's own Dir or the fallback:
// files open by name, never through a symlink; a walk down from an open
// directory (fsys.DirWalker) lists and opens what is in it.
func testOpenDir(t *testing.T, mk func(t *testing.T) Harness) {
	e := newEnv(t, mk, "d/f=data", "d/sub/", "d/sub/g=gee", "d/l => f", "d/ls => sub", "ld => d", "lo => ../outside", "top=x")
	for _, c := range []struct {
		dir  string
		kind error
	}{{"missing", fsys.ErrNotFound}, {"top", fsys.ErrNotDir}, {"lo", fsys.ErrOutside}, {"../outside", fsys.ErrOutside}} {
		_, err := fsys.OpenDir(e.p, c.dir)
		wantKind(t, "OpenDir("+c.dir+")", err, c.kind)
	}
	d, err := fsys.OpenDir(e.p, "ld")
	wantKind(t, "OpenDir(ld)", err, nil)
	defer d.Close()
	for _, c := range []struct {
		name, data string
		kind       error
	}{{"f", "data", nil}, {"l", "", fsys.ErrNotRegular}, {"sub", "", fsys.ErrIsDir}, {"missing", "", fsys.ErrNotFound}, {"../top", "", fsys.ErrInvalid}, {"", "", fsys.ErrInvalid}} {
		r, info, err := d.Open(c.name)
		wantKind(t, "Dir.Open("+c.name+")", err, c.kind)
		if err != nil {
			continue
		}
		got := readAll(t, r)
		r.Close()
		if got != c.data || info.Size != int64(len(c.data)) || info.Type != fsys.TypeFile {
			t.Errorf("Dir.Open(%s) read %q, info %+v; want %q", c.name, got, info, c.data)
		}
	}
	w, ok := d.(fsys.DirWalker)
	if !ok {
		return
	}
	testDirWalker(t, e, w)
}

func testDirWalker(t *testing.T, e *env, w fsys.DirWalker) {
	got, err := w.ReadDirTypes()
	wantKind(t, "Dir.ReadDirTypes", err, nil)
	want, _ := fsys.ReadDirTypes(e.p, "d")
	if len(got) != len(want) {
		t.Fatalf("Dir.ReadDirTypes = %v, ReadDirTypes(d) = %v", got, want)
	}
	for i := range got {
		if got[i].Name != want[i].Name || got[i].Type != want[i].Type {
			t.Errorf("Dir.ReadDirTypes[%d] = %s %s, want %s %s", i, got[i].Name, got[i].Type, want[i].Name, want[i].Type)
		}
	}
	for _, c := range []struct {
		name string
		kind error
	}{{"ls", fsys.ErrNotDir}, {"f", fsys.ErrNotDir}, {"missing", fsys.ErrNotFound}, {"..", fsys.ErrInvalid}} {
		_, err := w.OpenDir(c.name)
		wantKind(t, "Dir.OpenDir("+c.name+")", err, c.kind)
	}
	sub, err := w.OpenDir("sub")
	wantKind(t, "Dir.OpenDir(sub)", err, nil)
	defer sub.Close()
	r, _, err := sub.Open("g")
	wantKind(t, "open d/sub/g", err, nil)
	if got := readAll(t, r); got != "gee" {
		t.Errorf("d/sub/g read through the walk: %q", got)
	}
	r.Close()
	e.settle("open dir")
}
