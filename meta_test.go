//go:build unix

package stet_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/local"
)

// modeOf returns the permission and special bits of a file on disk, in the
// kernel's octal form, and its link count.
func modeOf(t *testing.T, root, name string) (uint32, uint64) {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(filepath.Join(root, name), &st); err != nil {
		t.Fatal(err)
	}
	return uint32(st.Mode) & 0o7777, uint64(st.Nlink)
}

func chmod(t *testing.T, root, name string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(filepath.Join(root, name), mode); err != nil {
		t.Fatal(err)
	}
}

func TestUndoOfDeleteRestoresMode(t *testing.T) {
	files := map[string]string{"id_rsa": "KEY\n", "run.sh": "#!/bin/sh\n", "tool": "bin\n", "notes.txt": "n\n"}
	_, s, root := open(t, files, stet.Options{})
	chmod(t, root, "id_rsa", 0o600)
	chmod(t, root, "run.sh", 0o755)
	chmod(t, root, "tool", 0o755|os.ModeSetuid)
	for _, c := range []struct {
		name string
		mode uint32
		text string
	}{{"id_rsa", 0o600, "0600"}, {"run.sh", 0o755, "0755"}, {"tool", 0o4755, "4755"}, {"notes.txt", 0o644, "0644"}} {
		if _, err := s.Read(ctx, stet.ReadArgs{Path: c.name}); err != nil {
			t.Fatal(err)
		}
		del, err := s.Delete(ctx, stet.DeleteArgs{Path: c.name})
		if err != nil {
			t.Fatal(err)
		}
		if del.Receipt.Before == nil || del.Receipt.Before.Mode != c.text {
			t.Errorf("%s: delete receipt before %+v, want mode %s", c.name, del.Receipt.Before, c.text)
		}
		und, err := s.Undo(ctx, stet.UndoArgs{Path: c.name})
		if err != nil {
			t.Fatal(err)
		}
		if content(t, root, c.name) != files[c.name] {
			t.Fatalf("%s: bytes after undo", c.name)
		}
		if m, _ := modeOf(t, root, c.name); m != c.mode {
			t.Errorf("%s: mode after undo of delete %04o, want %04o", c.name, m, c.mode)
		}
		if und.Receipt.After == nil || und.Receipt.After.Mode != c.text {
			t.Errorf("%s: undo receipt after %+v, want mode %s", c.name, und.Receipt.After, c.text)
		}
	}
}

func TestEditKeepsModeOwnerXattrsAndReceiptSaysMode(t *testing.T) {
	_, s, root := open(t, map[string]string{"deploy.sh": "echo one\n"}, stet.Options{})
	p := filepath.Join(root, "deploy.sh")
	root0 := os.Geteuid() == 0
	if root0 {
		if err := os.Chown(p, 1234, 5678); err != nil {
			t.Fatal(err)
		}
	}
	chmod(t, root, "deploy.sh", 0o750|os.ModeSetgid)
	// Extended attributes are kept on Linux and macOS (elsewhere they are
	// a documented loss).
	xattrs := (runtime.GOOS == "linux" || runtime.GOOS == "darwin") && unix.Setxattr(p, "user.origin", []byte("ci"), 0) == nil
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "deploy.sh"}); err != nil {
		t.Fatal(err)
	}
	res, err := s.Edit(ctx, stet.EditArgs{Path: "deploy.sh", OldString: ptr("one"), NewString: ptr("two")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Receipt.Before.Mode != "2750" || res.Receipt.After.Mode != "2750" {
		t.Errorf("receipt modes before %q after %q, want 2750", res.Receipt.Before.Mode, res.Receipt.After.Mode)
	}
	if m, n := modeOf(t, root, "deploy.sh"); m != 0o2750 || n != 1 {
		t.Errorf("after edit: mode %04o, %d links; want 2750, 1", m, n)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		t.Fatal(err)
	}
	if root0 && (st.Uid != 1234 || st.Gid != 5678) {
		t.Errorf("owner after edit %d:%d, want 1234:5678", st.Uid, st.Gid)
	}
	if xattrs {
		b := make([]byte, 16)
		n, err := unix.Getxattr(p, "user.origin", b)
		if err != nil || string(b[:n]) != "ci" {
			t.Errorf("xattr after edit: %q, %v", b[:max(n, 0)], err)
		}
	}
	// Undo keeps them too.
	if _, err := s.Undo(ctx, stet.UndoArgs{Path: "deploy.sh"}); err != nil {
		t.Fatal(err)
	}
	if m, n := modeOf(t, root, "deploy.sh"); m != 0o2750 || n != 1 || content(t, root, "deploy.sh") != "echo one\n" {
		t.Errorf("after undo: mode %04o, %d links", m, n)
	}
}

func TestPatchRollbackKeepsModeAndLinks(t *testing.T) {
	files := map[string]string{"a.txt": "one\n", "gone.sh": "#!/bin/sh\n", "c.txt": "three\n"}
	var root string
	hooks := stet.Hooks{BeforeSwap: func(p string) {
		if p == "c.txt" { // someone else writes c.txt mid-patch: the patch must roll back
			os.WriteFile(filepath.Join(root, "c.txt"), []byte("other\n"), 0o644)
		}
	}}
	_, s, r := open(t, files, stet.Options{Hooks: hooks})
	root = r
	chmod(t, root, "a.txt", 0o640)
	chmod(t, root, "gone.sh", 0o750)
	for name := range files {
		if _, err := s.Read(ctx, stet.ReadArgs{Path: name}); err != nil {
			t.Fatal(err)
		}
	}
	patch := "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Delete File: gone.sh\n*** Update File: c.txt\n@@\n-three\n+THREE\n*** End Patch\n"
	if _, err := s.Patch(ctx, stet.PatchArgs{Patch: patch}); err == nil {
		t.Fatal("the patch landed although c.txt changed under it")
	}
	if content(t, root, "a.txt") != "one\n" || content(t, root, "gone.sh") != "#!/bin/sh\n" {
		t.Fatal("rollback did not restore the bytes")
	}
	if m, n := modeOf(t, root, "a.txt"); m != 0o640 || n != 1 {
		t.Errorf("a.txt after rollback: mode %04o, %d links; want 0640, 1", m, n)
	}
	if m, n := modeOf(t, root, "gone.sh"); m != 0o750 || n != 1 {
		t.Errorf("gone.sh after rollback: mode %04o, %d links; want 0750, 1", m, n)
	}
}

func TestSweepRunsBeforeTheFirstChangeAndStaysOutOfRuleTrees(t *testing.T) {
	const dead = ".stet-tmp-2147483600-00000000deadbeef" // a temp file of a process that is gone
	files := map[string]string{
		"a.txt": "one\n", dead: "x", "sub/" + dead: "x",
		".git/" + dead: "x", "secrets/" + dead: "x", "vault/" + dead: "x", ".stet-tmp-notes": "mine",
	}
	_, s, root := open(t, files, stet.Options{DenyRead: []string{"secrets/**"}, Protect: []string{"vault"}})
	exists := func(name string) bool {
		_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(name)))
		return err == nil
	}
	if !exists(dead) {
		t.Fatal("the sweep ran at Open")
	}
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "a.txt"}); err != nil {
		t.Fatal(err)
	}
	if !exists(dead) {
		t.Fatal("a read swept")
	}
	if _, err := s.Write(ctx, stet.WriteArgs{Path: ".git/config", Content: "x"}); kindOf(err) != stet.KindProtected {
		t.Fatalf("write into .git: %v", err)
	}
	if _, err := s.Edit(ctx, stet.EditArgs{Path: "sub/" + dead, OldString: ptr("x"), NewString: ptr("y")}); kindOf(err) != stet.KindNotRead {
		t.Fatalf("edit of an unread file: %v", err)
	}
	if _, err := s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("one"), NewString: ptr("two"), DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if !exists(dead) {
		t.Fatal("a refused call or a dry run swept")
	}
	if _, err := s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("one"), NewString: ptr("two")}); err != nil {
		t.Fatal(err)
	}
	if exists(dead) {
		t.Error("a change did not sweep the leftover temp files of its directory")
	}
	if !exists("sub/" + dead) {
		t.Error("a change swept another directory (the whole tree is swept only after a crash)")
	}
	if _, err := s.List(ctx, stet.ListArgs{Path: "sub"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "sub/new.txt", Content: "new\n"}); err != nil {
		t.Fatal(err)
	}
	if exists("sub/" + dead) {
		t.Error("a change in sub did not sweep sub's leftover temp files")
	}
	for _, name := range []string{".git/" + dead, "secrets/" + dead, "vault/" + dead, ".stet-tmp-notes"} {
		if !exists(name) {
			t.Errorf("the sweep removed %s", name)
		}
	}
}

func TestForeignLockEndsInAClearRefusal(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "f.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := local.Open(root, local.Options{LockWait: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := stet.Open([]string{root}, stet.Options{State: t.TempDir(), Providers: []fsys.Provider{p}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	s, err := ws.Session("test")
	if err != nil {
		t.Fatal(err)
	}
	// Another process's flock on the directory: flock locks belong to open
	// files, so this descriptor's lock is one stet does not hold.
	d, err := os.Open(sub)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.Read(ctx, stet.ReadArgs{Path: "sub/f.txt"})
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		syscall.Flock(int(d.Fd()), syscall.LOCK_UN)
		t.Fatal("read still waiting for a foreign lock after 10s")
	}
	ref, ok := stet.AsRefusal(err)
	if !ok || ref.Kind != stet.KindConflict || !strings.Contains(ref.Message, "another process holds a lock on "+sub) {
		t.Fatalf("read under a foreign lock: %v", err)
	}
	syscall.Flock(int(d.Fd()), syscall.LOCK_UN)
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "sub/f.txt"}); err != nil {
		t.Fatalf("read once the lock is gone: %v", err)
	}
}
