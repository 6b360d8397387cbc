//go:build unix

package local

import (
	"errors"
	"fmt"
	"os"
	"path"

	"golang.org/x/sys/unix"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/internal/confine"
)

// ReplaceKeep is Replace that hands the file it displaces to keep instead
// of unlinking it (fsys.Keeper). After the exchange the old file lies,
// intact and durable, under the temp name: it is renamed into keep.Dir as
// keep.Name and keep.Adopt is called, before the directory is fsynced, so
// one fsync of the file's directory makes both the swap and the handover
// durable there. It is copied instead (keep.Save) where it cannot be
// adopted: keep.Dir nil or on another filesystem (or mount: EXDEV), no
// exchange here (Options.NoExchange, or a filesystem without it: then
// before the rename that drops the old file), an old file with other hard
// links (they keep it: the store must own the file alone) or owned by
// another user (who could still change it), or keep.Adopt refused it. The
// new file is made exactly as by Replace (mode, owner, extended
// attributes); the adopted one keeps its bytes, and the store gives it the
// mode it wants.
func (l *FS) ReplaceKeep(name string, data []byte, expect fsys.Expected, keep fsys.Keep) (fsys.Commit, fsys.Kept, error) {
	if keep.Save == nil {
		return fsys.Commit{}, fsys.Kept{}, fsys.E("replace", name, fsys.ErrInvalid, errors.New("a Keep without Save"))
	}
	kp := &keeper{k: keep}
	cm, err := l.replace(name, data, expect, kp)
	return cm, kp.kept, err
}

// RemoveKeep is Remove that hands the removed file to keep (see
// ReplaceKeep): set aside under the temp name and compared, it is renamed
// into the store instead of unlinked.
func (l *FS) RemoveKeep(name string, expect fsys.Expected, keep fsys.Keep) (fsys.Commit, fsys.Kept, error) {
	if keep.Save == nil {
		return fsys.Commit{}, fsys.Kept{}, fsys.E("remove", name, fsys.ErrInvalid, errors.New("a Keep without Save"))
	}
	kp := &keeper{k: keep}
	cm, err := l.remove(name, expect, kp)
	return cm, kp.kept, err
}

// RenameKeep is Rename of from over the file at to, which must hold dst,
// handing the file it replaces to keep instead of unlinking it
// (fsys.Keeper). After the exchange the replaced file lies, compared and
// intact, under the old name from: it is renamed from there into keep.Dir
// as keep.Name, which frees the old name in the same step, and keep.Adopt
// is called; both directories are then fsynced, as after every move. It is
// copied instead (keep.Save) where it cannot be adopted, by ReplaceKeep's
// rules: before the swap when that is known first (keep.Dir nil or on
// another filesystem, Options.NoExchange, other hard links, another owner),
// just before a rename that drops it when the filesystem has no exchange,
// and after the exchange when the handover fails (the old name is then
// unlinked). Everything else is as Rename.
func (l *FS) RenameKeep(from, to string, src, dst fsys.Expected, keep fsys.Keep) (fsys.Commit, fsys.Kept, error) {
	if keep.Save == nil {
		return fsys.Commit{}, fsys.Kept{}, fsys.E("rename", to, fsys.ErrInvalid, errors.New("a Keep without Save"))
	}
	kp := &keeper{k: keep}
	cm, err := l.rename(from, to, src, &dst, kp)
	return cm, kp.kept, err
}

// AdoptTemp hands the temp file name (a root-relative path whose base name
// is a temp name, IsTempName, as an intent recorded it) to keep if it holds
// what expect describes: the old file a replace or delete left there when
// its process died between the swap and the handover. Unlike ReplaceKeep it
// reads the file once to compare it, having no earlier compare to rely on.
// A file holding other bytes is left where it is (fsys.ErrConflict with
// what it holds), a missing one fails with fsys.ErrNotFound. Where the file
// cannot be adopted (see ReplaceKeep), keep.Save is called (the caller
// reads the temp file) and the temp file is then removed.
func (l *FS) AdoptTemp(name string, expect fsys.Expected, keep fsys.Keep) (fsys.Kept, error) {
	return l.adoptLeft("adopt temp", name, expect, keep, true)
}

// AdoptMoved hands the file name (root-relative) to keep if it holds what
// expect describes: the file a move over it replaced, which the move's
// exchange left under the move's old name when its process died before
// the handover (RenameKeep). It is AdoptTemp for a name that is no temp
// name, with one difference: where the file cannot be adopted, keep.Save
// is called and the file is left where it is, for the caller to remove by
// compare (Remove), as any file a user can see.
func (l *FS) AdoptMoved(name string, expect fsys.Expected, keep fsys.Keep) (fsys.Kept, error) {
	return l.adoptLeft("adopt moved", name, expect, keep, false)
}

// adoptLeft is AdoptTemp (temp: name must be a temp name, and a copied
// file is removed) and AdoptMoved.
func (l *FS) adoptLeft(op, name string, expect fsys.Expected, keep fsys.Keep, temp bool) (fsys.Kept, error) {
	if keep.Save == nil {
		return fsys.Kept{}, fsys.E(op, name, fsys.ErrInvalid, errors.New("a Keep without Save"))
	}
	c, err := confine.Clean(op, name)
	if err != nil {
		return fsys.Kept{}, err
	}
	base := path.Base(c)
	if _, ok := IsTempName(base); temp && !ok {
		return fsys.Kept{}, fsys.E(op, name, fsys.ErrInvalid, errors.New("not a temp file name"))
	}
	if c == "." {
		return fsys.Kept{}, fsys.E(op, name, fsys.ErrInvalid, errors.New("the root is not a file"))
	}
	r, err := l.walk(op, path.Dir(c), true)
	if err != nil {
		return fsys.Kept{}, err
	}
	switch {
	case !r.Exists():
		return fsys.Kept{}, fsys.E(op, name, fsys.ErrNotFound, nil)
	case !r.Info.IsDir():
		return fsys.Kept{}, fsys.E(op, name, fsys.ErrNotDir, nil)
	}
	d, err := l.openDir(r.Path)
	if err != nil {
		return fsys.Kept{}, l.fail(op, name, err)
	}
	defer d.close()
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fsys.Kept{}, l.fail(op, name, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fsys.Kept{}, fsys.E(op, name, fsys.ErrNotRegular, nil)
	}
	f, err := l.check(d, base, expect)
	if err != nil {
		return fsys.Kept{}, l.fail(op, name, err)
	}
	if !f.match {
		return fsys.Kept{Why: "it holds other bytes"}, conflict(op, name, expect.Version, f)
	}
	kp := &keeper{k: keep, leave: !temp}
	kp.plan(l, &st)
	if err := kp.open(); err != nil {
		return kp.kept, err
	}
	if kp.kept.Why != "" {
		if err := kp.save(); err != nil {
			return kp.kept, fsys.E(op, name, fsys.ErrInvalid, err)
		}
		if !temp {
			return kp.kept, nil
		}
		d.unlink(base)
	} else if err := kp.take(d, base, f); err != nil {
		return kp.kept, l.fail(op, name, err)
	}
	if err := d.sync(); err != nil {
		return kp.kept, l.fail(op, name, err)
	}
	return kp.kept, nil
}

// keeper carries an fsys.Keep through one replace, remove or move over a
// file: whether the displaced file may still be adopted (kept.Why empty),
// and what became of it. Its methods do nothing on a nil keeper (a plain
// Replace, Remove or Rename).
type keeper struct {
	k    fsys.Keep
	kept fsys.Kept
	// A Keep that gives its store late (fsys.Keep.Open) is ruled on in
	// open, from the old file plan saw.
	l       *FS
	st      *unix.Stat_t
	pending bool
	// leave: a displaced file that was copied, not adopted, stays where it
	// is (AdoptMoved: its caller removes it by compare).
	leave bool
}

// plan rules adoption out before the swap where what is known already
// forbids it: st is the old file (nil if it could not be examined). When
// the store comes late (Keep.Open), the ruling waits for open.
func (kp *keeper) plan(l *FS, st *unix.Stat_t) {
	if kp == nil {
		return
	}
	if kp.k.Open != nil {
		kp.l, kp.st, kp.pending = l, st, true
		return
	}
	kp.kept.Why = kp.whyNot(l, st)
}

// planOld is plan for the file a replace reads its metadata from (m.from).
func (kp *keeper) planOld(l *FS, m *meta) {
	if kp == nil {
		return
	}
	kp.plan(l, m.from)
}

// open takes the store's directory, name and adoption from Keep.Open, where
// the caller gives them late, and rules on adoption as plan does.
func (kp *keeper) open() error {
	if kp == nil || !kp.pending {
		return nil
	}
	kp.pending = false
	k, err := kp.k.Open()
	if err != nil {
		return fmt.Errorf("saving the previous content (nothing was changed): %w", err)
	}
	kp.k.Dir, kp.k.Name, kp.k.Adopt = k.Dir, k.Name, k.Adopt
	kp.kept.Why = kp.whyNot(kp.l, kp.st)
	return nil
}

// planAt is plan for the entry base of d.
func (kp *keeper) planAt(l *FS, d *dirHandle, base string) {
	if kp == nil {
		return
	}
	var st unix.Stat_t
	if unix.Fstatat(d.fd, base, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		kp.plan(l, nil)
		return
	}
	kp.plan(l, &st)
}

func (kp *keeper) whyNot(l *FS, st *unix.Stat_t) string {
	switch {
	case kp.k.Dir == nil || kp.k.Adopt == nil:
		return "no store directory was given"
	case l.opts.NoExchange:
		return "no exchange (Options.NoExchange)"
	case st == nil:
		return "the old file could not be examined"
	case st.Nlink > 1:
		return fmt.Sprintf("the old file has %d hard links, and the store must own it alone", st.Nlink)
	case int(st.Uid) != unix.Geteuid():
		return fmt.Sprintf("the old file is owned by uid %d, not by this process (%d)", st.Uid, unix.Geteuid())
	}
	var ds unix.Stat_t
	if err := unix.Fstat(int(kp.k.Dir.Fd()), &ds); err != nil {
		return fmt.Sprintf("the store directory cannot be examined: %v", err)
	}
	if ds.Dev != st.Dev {
		return "the store is on another filesystem"
	}
	return ""
}

// keeps reports whether the displaced file is still to be handed over by
// take, so the swap leaves it under its temp name.
func (kp *keeper) keeps() bool { return kp != nil && !kp.pending && kp.kept.Why == "" }

// early opens a store given late (open) and copies the old bytes before the
// swap when adoption is ruled out.
func (kp *keeper) early() error {
	if err := kp.open(); err != nil {
		return err
	}
	if kp == nil || kp.kept.Why == "" {
		return nil
	}
	return kp.save()
}

// late copies the old bytes just before a swap that turned out to drop
// them (no exchange here after all), unless they were copied already.
func (kp *keeper) late(why string) error {
	if kp == nil || kp.kept.Saved {
		return nil
	}
	kp.kept.Why = why
	return kp.save()
}

func (kp *keeper) save() error {
	if err := kp.k.Save(); err != nil {
		return fmt.Errorf("saving the previous content (nothing was changed): %w", err)
	}
	kp.kept.Saved = true
	return nil
}

// take hands over the displaced file, which the swap left as tmp in d
// after comparing it (f): adopted by rename where it can be, else copied
// (keep.Save) and unlinked. Only when even the copy fails is it kept, and
// the error says where.
func (kp *keeper) take(d *dirHandle, tmp string, f found) error {
	if !kp.keeps() {
		return nil
	}
	why, moved := kp.handover(d, tmp, f)
	if why == "" {
		kp.kept.Adopted = true
		return nil
	}
	kp.kept.Why = why
	if err := kp.k.Save(); err != nil {
		where := "as " + tmp + " beside the file"
		if moved {
			where = "as " + kp.k.Name + " in the store's directory"
		}
		return fmt.Errorf("the change landed, but its previous content could not be adopted (%s) or saved; it is kept %s: %w", why, where, err)
	}
	kp.kept.Saved = true
	if !moved && !kp.leave {
		d.unlink(tmp)
	}
	return nil
}

// handover renames tmp, the file f compared, into the store and has the
// store adopt it. It returns why not ("" when adopted) and whether the file
// left d.
func (kp *keeper) handover(d *dirHandle, tmp string, f found) (why string, moved bool) {
	var fd int
	err := retry(func() (err error) {
		fd, err = unix.Openat(d.fd, tmp, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return fmt.Sprintf("the displaced file cannot be opened: %v", err), false
	}
	file := os.NewFile(uintptr(fd), tmp)
	defer file.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Sprintf("the displaced file cannot be examined: %v", err), false
	}
	switch {
	case uint64(st.Ino) != f.ino || st.Mode&unix.S_IFMT != unix.S_IFREG:
		return "another file took the temp name after the compare", false
	case st.Nlink != 1:
		return fmt.Sprintf("the displaced file has %d hard links", st.Nlink), false
	}
	seen, err := file.Stat()
	if err != nil {
		return fmt.Sprintf("the displaced file cannot be examined: %v", err), false
	}
	err = retry(func() error { return unix.Renameat(d.fd, tmp, int(kp.k.Dir.Fd()), kp.k.Name) })
	switch {
	case err == unix.EXDEV:
		return "the store is on another mount (EXDEV)", false
	case err != nil:
		return fmt.Sprintf("the rename into the store failed: %v", err), false
	}
	if err := kp.k.Adopt(seen); err != nil {
		return fmt.Sprintf("the store refused it: %v", err), true
	}
	return "", true
}
