package local

// The commit sequence, written once for every system, as os.Root writes
// its confined walk once (doInRoot): Create, Replace, Remove (here) and
// Rename (move.go) are short functions over one held directory and the
// same steps (write the temp file, Expected.Ready, BeforeSwap, the
// directory lock, the still-check, the open-writer check, the swap and its
// compare, AfterSwap, the handover, the directory's fsync). What differs
// per system is a primitive of the directory handle (handle_unix.go,
// handle_windows.go: open, unlink, rename, link, identity, flush; the
// locks in lock_unix.go and lock_windows.go) or of the platform
// (platform_<os>.go: the exchange, the rename that refuses a taken name,
// the open-writer check, and what they can do, declared in platform). A
// primitive a system lacks answers errNotHere, and the sequence takes the
// path it takes for a filesystem that refuses the call.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"sync"
	"time"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/internal/confine"
)

// chunkSize is how much of a swapped-out file is read at a time to compare.
const chunkSize = 256 << 10

// DefaultLockWait is how long a directory lock is waited for when
// Options.LockWait is 0.
const DefaultLockWait = 5 * time.Second

// errNotHere is the answer of a primitive this system does not have (an
// exchange of two names on Windows, the open-writer check outside Linux):
// unsupported reports it, and the sequence takes its fallback, as for a
// filesystem that refuses the call.
var errNotHere = fmt.Errorf("%w on %s", errors.ErrUnsupported, runtime.GOOS)

// primitives declares what one platform's primitives do, in the words of
// the table in docs/platforms.md: each platform_<os>.go sets platform, and
// platform_test.go renders the declaration of every GOOS into the table's
// rows and compares them with the document. "" says the platform has no
// such primitive.
type primitives struct {
	// exchange swaps two names in one step; without it a replace
	// compares, then renames over (Commit.Fallback).
	exchange string
	// noReplace renames onto a free name and fails on a taken one;
	// without it a create links, then removes the temp name.
	noReplace string
	// link is the hard link a create falls back on.
	link string
	// flush makes a file's bytes durable; flushDir says whether a
	// directory is flushed after each commit too.
	flush    string
	flushDir bool
	// lock is the directory lock taken for the instant of a swap.
	lock string
	// still is how a held directory is proved to be the one at its path
	// just before the swap (otherwise fsys.ErrMoved).
	still string
	// openWriter is how another process holding the file open for
	// writing is seen (otherwise not at all); writerElse is what happens
	// instead where it is not seen.
	openWriter string
	writerElse string
}

// fileID identifies a file on its system: device and inode, or volume
// serial number and file index.
type fileID struct{ dev, ino uint64 }

// held is a name resolved once: the walk's result and the open directory
// that holds what it resolved to. Every change of a single name works
// through one (openParent), and on Unix so does a Handle (Hold).
type held struct {
	l    *FS
	name string         // as given, for messages
	r    confine.Result // the walk (r.Info is not trusted later)
	d    *dirHandle     // the directory of r.Path, open
	base string         // r.Path's last component
}

// still checks that the held directory is the directory at its path inside
// the root now: a held descriptor follows its directory wherever another
// process renames it, so a change through it could otherwise land outside
// the workspace. One confined lookup of the directory's path (idAt),
// compared with the identity of the open directory (id). The caller holds
// the directory lock and swaps right after.
func (h *held) still(op string) error {
	want, err := h.d.id()
	if err != nil {
		return h.l.fail(op, h.name, err)
	}
	now, err := h.l.idAt(h.d.rel)
	if err == nil {
		if now == want {
			return nil
		}
		err = errors.New("another directory is there now")
	}
	return fsys.E(op, h.name, fsys.ErrMoved, fmt.Errorf("the directory %s held since the name was resolved is no longer at that path inside the workspace (%w)", h.d.rel, err))
}

// found is what a compare saw in a directory entry.
type found struct {
	match   bool
	version fsys.Version // when !match and a regular file was there
	links   int
	ino     uint64 // of the file compared
}

// opened is a directory entry opened for a compare (dirHandle.openEntry).
type opened struct {
	f       fileRef
	size    int64
	links   int
	ino     uint64
	regular bool
}

// check opens the entry name of d without following it and reports whether
// it is a regular file holding what expect expects. Nothing there, a
// symlink or a special file is a mismatch, not an error.
func (l *FS) check(d *dirHandle, name string, expect fsys.Expected) (found, error) {
	e, ok, err := d.openEntry(name)
	if err != nil || !ok {
		return found{}, err
	}
	defer closeRef(e.f)
	f := found{links: e.links, ino: e.ino}
	if !e.regular {
		return f, nil
	}
	if expect.Bytes == nil {
		f.version, err = l.versionOf(e.f)
		f.match = err == nil && f.version == expect.Version
		return f, err
	}
	f.match, err = l.matches(e.f, e.size, expect.Bytes)
	if err == nil && !f.match {
		f.version, err = l.versionOf(e.f)
	}
	return f, err
}

func (l *FS) buf() *[]byte {
	if b, ok := l.bufPool.Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, chunkSize)
	return &b
}

// matches compares the open file f, of the given size, with want, chunk
// by chunk, stopping at the first difference: no hashing.
func (l *FS) matches(f fileRef, size int64, want []byte) (bool, error) {
	if int64(len(want)) != size {
		return false, nil
	}
	bp := l.buf()
	defer l.bufPool.Put(bp)
	b := *bp
	for off := 0; off < len(want); {
		n := min(len(b), len(want)-off)
		m, err := preadFull(f, b[:n], int64(off))
		if err != nil {
			return false, err
		}
		if m < n || !bytes.Equal(b[:n], want[off:off+n]) {
			return false, nil
		}
		off += n
	}
	// Nothing past the expected end.
	m, err := preadFull(f, b[:1], size)
	return m == 0, err
}

// versionOf hashes the whole open file f.
func (l *FS) versionOf(f fileRef) (fsys.Version, error) {
	bp := l.buf()
	defer l.bufPool.Put(bp)
	b := *bp
	h := sha256.New()
	for off := int64(0); ; {
		m, err := preadFull(f, b, off)
		if err != nil {
			return "", err
		}
		h.Write(b[:m])
		off += int64(m)
		if m < len(b) {
			break
		}
	}
	return fsys.Version(fsys.VersionPrefix + hex.EncodeToString(h.Sum(nil))), nil
}

func (l *FS) hook(h func(string), name string) {
	if h != nil {
		h(name)
	}
}

func conflict(op, name string, expect fsys.Version, f found) error {
	return fsys.E(op, name, fsys.ErrConflict, &fsys.ConflictError{Expected: expect, Found: f.version})
}

func linkNote(name string, links int, keep string) string {
	if links == 2 {
		return fmt.Sprintf("%s had 2 hard links; the other keeps the %s", name, keep)
	}
	return fmt.Sprintf("%s had %d hard links; the other %d keep the %s", name, links, links-1, keep)
}

// openParent is the one walk every change of a single name starts with,
// after os.Root's doInRoot: resolve name through the confined walk
// (following a final symlink that stays inside), let check refuse what was
// found, then open the directory that holds it. It returns the name held
// (see held): the walk, the open directory (the caller closes it) and the
// name's last component there.
func (l *FS) openParent(op, name string, check func(confine.Result) error) (*held, error) {
	r, err := l.walk(op, name, true)
	if err != nil {
		return nil, err
	}
	if err := check(r); err != nil {
		return nil, err
	}
	d, err := l.openDir(path.Dir(r.Path))
	if err != nil {
		return nil, l.fail(op, name, err)
	}
	return &held{l: l, name: name, r: r, d: d, base: path.Base(r.Path)}, nil
}

// Create makes a new regular file at name holding data, with the mode perm
// set exactly (fsys.ModeBits: setuid, setgid and sticky included; the
// umask does not apply), so a restored file gets back the mode it had.
// Perm 0 makes a new file like any other: 0o644 under the process umask.
// On Windows only the write bit counts: without it the file is read-only.
// It never replaces anything: the temp file is renamed with
// RENAME_NOREPLACE (macOS: RENAME_EXCL) or hard-linked to name, and an
// existing entry, a dangling symlink included, fails with fsys.ErrExists.
// (Only where neither exists does it check, then rename: Commit.Fallback.)
// The parent directory must exist.
func (l *FS) Create(name string, data []byte, perm fs.FileMode) (fsys.Commit, error) {
	return l.CreateAs(name, data, perm, "")
}

// CreateAs is Create writing through the temp file named temp, a name
// TempName returned ("" for a fresh one), so that a caller that recorded it
// before the change can remove exactly it after a crash (RemoveTemp).
func (l *FS) CreateAs(name string, data []byte, perm fs.FileMode, temp string) (fsys.Commit, error) {
	return l.CreateWith(name, data, perm, fsys.Expected{Temp: temp})
}

// CreateWith is CreateAs taking the temp file's name from exp.Temp and,
// when exp.Ready is not nil, calling it once the new bytes are durable in
// the temp file and before they are linked in, as Replace does: an error
// from it removes the temp file, creates nothing and is returned. A caller
// makes its write-ahead intent durable there while the bytes are written.
// exp.Version and exp.Bytes are not used.
func (l *FS) CreateWith(name string, data []byte, perm fs.FileMode, exp fsys.Expected) (fsys.Commit, error) {
	const op = "create"
	if err := checkTemp(op, name, exp.Temp); err != nil {
		return fsys.Commit{}, err
	}
	h, err := l.openParent(op, name, func(r confine.Result) error {
		switch {
		case r.Exists(), r.FinalLink:
			return fsys.E(op, name, fsys.ErrExists, nil)
		case len(r.Rest) > 0:
			return fsys.E(op, name, fsys.ErrNotFound, errors.New("parent directory does not exist"))
		}
		return nil
	})
	if err != nil {
		return fsys.Commit{}, err
	}
	defer h.d.close()
	return h.create(data, perm, exp)
}

// create is CreateWith in the held directory.
func (h *held) create(data []byte, perm fs.FileMode, exp fsys.Expected) (fsys.Commit, error) {
	const op = "create"
	l, d, base, name := h.l, h.d, h.base, h.name
	tmp, _, err := l.writeTemp(d, data, createMeta(perm, exp.Temp))
	if err != nil {
		return fsys.Commit{}, l.fail(op, name, err)
	}
	if exp.Ready != nil {
		if err := exp.Ready(); err != nil {
			d.unlink(tmp)
			return fsys.Commit{}, err
		}
	}
	l.hook(l.opts.Hooks.BeforeSwap, h.r.Path)
	unlock, err := l.lock(d)
	if err != nil {
		d.unlink(tmp)
		return fsys.Commit{}, l.fail(op, name, err)
	}
	if err := h.still(op); err != nil {
		unlock()
		d.unlink(tmp)
		return fsys.Commit{}, err
	}
	err = errFallback
	if !l.opts.NoExchange {
		err = renameNoReplace(d, tmp, d, base)
	}
	cm := fsys.Commit{Resolved: h.r.Path}
	if err == errFallback || unsupported(err) {
		cm.Fallback, err = l.noClobber(d, tmp, d, base)
	}
	unlock()
	if err != nil {
		d.unlink(tmp)
		return fsys.Commit{}, l.fail(op, name, err)
	}
	l.hook(l.opts.Hooks.AfterSwap, h.r.Path)
	if err := d.sync(); err != nil {
		return cm, l.fail(op, name, err)
	}
	return cm, nil
}

// errFallback stands for "renameat2 not tried": Options.NoExchange.
var errFallback = errors.New("fallback forced")

// Replace swaps data in for the regular file at name if and only if it holds
// the bytes expect describes; otherwise it fails with fsys.ErrConflict
// wrapping a *fsys.ConflictError and the file keeps whatever it holds. A
// symlink on the way is followed and kept: its target changes. The new
// file keeps the old one's mode (setuid, setgid and sticky included), its
// owner and group where this process may set them (a note says when it
// may not), and its extended attributes where the filesystem has them.
//
// On Linux and macOS the new bytes are exchanged with the old ones in one
// renameat2(RENAME_EXCHANGE) or renameatx_np(RENAME_SWAP), the swapped-out
// bytes are compared, and on a mismatch exchanged back, so a change made by
// anyone up to the swap is never lost. Elsewhere (Windows included) the
// file is compared, then renamed over, under the directory lock
// (Commit.Fallback). On Windows the new file keeps only the read-only flag
// of the old one, and a file another program holds open without delete
// sharing cannot be replaced: the call fails and nothing changes.
func (l *FS) Replace(name string, data []byte, expect fsys.Expected) (fsys.Commit, error) {
	return l.replace(name, data, expect, nil)
}

// replace is Replace; a non-nil kp hands the displaced file over (keep.go).
func (l *FS) replace(name string, data []byte, expect fsys.Expected, kp *keeper) (fsys.Commit, error) {
	const op = "replace"
	if err := checkTemp(op, name, expect.Temp); err != nil {
		return fsys.Commit{}, err
	}
	h, err := l.openParent(op, name, func(r confine.Result) error { return r.NeedFile(op, name) })
	if err != nil {
		return fsys.Commit{}, err
	}
	defer h.d.close()
	return h.replace(data, expect, kp, permOf(h.r.Info))
}

// replace is Replace in the held directory; perm is the mode to fall back
// on when the file's own cannot be read.
func (h *held) replace(data []byte, expect fsys.Expected, kp *keeper, perm uint32) (fsys.Commit, error) {
	const op = "replace"
	l, d, base, name := h.l, h.d, h.base, h.name
	m := oldMeta(d, base, perm)
	m.temp = expect.Temp
	kp.planOld(l, m)
	tmp, ino, err := l.writeTemp(d, data, m)
	m.closeSrc()
	if err != nil {
		return fsys.Commit{}, l.fail(op, name, err)
	}
	cm := fsys.Commit{Resolved: h.r.Path, Notes: m.notes}
	if expect.Ready != nil {
		if err := expect.Ready(); err != nil {
			d.unlink(tmp)
			return cm, err
		}
	}
	if err := kp.early(); err != nil {
		d.unlink(tmp)
		return cm, err
	}
	l.hook(l.opts.Hooks.BeforeSwap, h.r.Path)
	unlock, err := l.lock(d)
	if err != nil {
		d.unlink(tmp)
		return cm, l.fail(op, name, err)
	}
	if err := h.still(op); err != nil {
		unlock()
		d.unlink(tmp)
		return cm, err
	}
	if err := writerAt(d, base); err != nil {
		unlock()
		d.unlink(tmp)
		return cm, fsys.E(op, name, fsys.ErrOpenWriter, err)
	}
	f, err := l.swap(d, tmp, ino, base, expect, &cm, kp)
	unlock()
	if err != nil {
		return cm, l.fail(op, name, err)
	}
	if !f.match {
		return cm, conflict(op, name, expect.Version, f)
	}
	if expect.Discard != nil && !cm.Fallback && !kp.keeps() {
		defer l.discard(d, tmp, expect) // the swapped-out file, once d is synced
	}
	l.hook(l.opts.Hooks.AfterSwap, h.r.Path)
	if err := kp.take(d, tmp, f); err != nil {
		return cm, l.fail(op, name, err)
	}
	if err := d.sync(); err != nil {
		return cm, l.fail(op, name, err)
	}
	if f.links > 1 {
		cm.Notes = append(cm.Notes, linkNote(name, f.links, "old bytes"))
	}
	return cm, nil
}

// swap puts the temp file tmp (inode ino) in place of base if base holds
// what expect expects, and reports what it found there. tmp is gone
// afterwards, whatever happens, unless an error says where it is kept.
func (l *FS) swap(d *dirHandle, tmp string, ino uint64, base string, expect fsys.Expected, cm *fsys.Commit, kp *keeper) (found, error) {
	err := errFallback
	if !l.opts.NoExchange {
		err = exchange(d, tmp, base)
	}
	switch {
	case err == nil:
		// tmp now names the swapped-out file.
		f, err := l.check(d, tmp, expect)
		if err == nil && f.match {
			if kp.keeps() {
				return f, nil // tmp holds the old bytes for kp.take
			}
			if expect.Discard == nil {
				d.unlink(tmp) // if this fails, a later Sweep removes it
			} // else replace hands it to expect.Discard once d is synced
			return f, nil
		}
		if berr := exchange(d, tmp, base); berr != nil {
			return f, fmt.Errorf("the swapped-out file could not be checked or swapped back; it is kept as %s: %w",
				tmp, errors.Join(err, berr))
		}
		// If what came back is not ours, a program that does not take the
		// directory lock wrote over the name in the meantime: its bytes are
		// newer than the ones found, so they stay.
		if d.ino(tmp) != ino {
			exchange(d, tmp, base)
		}
		d.unlink(tmp)
		d.sync()
		return f, err
	case err == errFallback || unsupported(err):
		cm.Fallback = true
		f, err := l.check(d, base, expect)
		if err != nil || !f.match {
			d.unlink(tmp)
			return f, err
		}
		if err := kp.late("no exchange here: the rename drops the old file"); err != nil {
			d.unlink(tmp)
			return f, err
		}
		if err := l.renameAt(d, tmp, d, base); err != nil {
			d.unlink(tmp)
			return f, err
		}
		return f, nil
	default:
		d.unlink(tmp)
		if isNotExist(err) {
			return found{}, nil // the file went away before the swap
		}
		return found{}, err
	}
}

// discard removes tmp, the old file a swap displaced and compared, from d,
// or hands its removal to expect.Discard on a descriptor of d of its own,
// so that the caller frees the file's blocks beside its readback rather
// than before the directory's fsync.
func (l *FS) discard(d *dirHandle, tmp string, expect fsys.Expected) {
	if expect.Discard == nil {
		d.unlink(tmp)
		return
	}
	dd, err := d.dup()
	if err != nil {
		d.unlink(tmp)
		return
	}
	var once sync.Once
	expect.Discard(func() {
		once.Do(func() {
			dd.unlink(tmp)
			dd.close()
		})
	})
}

// Remove deletes the regular file at name if it holds the bytes expect
// describes; otherwise fsys.ErrConflict. It never removes directories. A
// symlink on the way is followed: the file it leads to is removed (Commit.
// Resolved names it) and the link is left dangling. On Linux and macOS the
// file is first renamed to a temp name, compared there, then unlinked or
// renamed back; elsewhere it is compared, then unlinked (Commit.Fallback).
func (l *FS) Remove(name string, expect fsys.Expected) (fsys.Commit, error) {
	return l.remove(name, expect, nil)
}

// remove is Remove; a non-nil kp hands the removed file over (keep.go).
func (l *FS) remove(name string, expect fsys.Expected, kp *keeper) (fsys.Commit, error) {
	const op = "remove"
	if err := checkTemp(op, name, expect.Temp); err != nil {
		return fsys.Commit{}, err
	}
	h, err := l.openParent(op, name, func(r confine.Result) error { return r.NeedFile(op, name) })
	if err != nil {
		return fsys.Commit{}, err
	}
	defer h.d.close()
	return h.remove(expect, kp)
}

// remove is Remove in the held directory.
func (h *held) remove(expect fsys.Expected, kp *keeper) (fsys.Commit, error) {
	const op = "remove"
	l, d, base, name := h.l, h.d, h.base, h.name
	cm := fsys.Commit{Resolved: h.r.Path}
	kp.planAt(l, d, base)
	if err := kp.early(); err != nil {
		return cm, err
	}
	l.hook(l.opts.Hooks.BeforeSwap, h.r.Path)

	unlock, err := l.lock(d)
	if err != nil {
		return cm, l.fail(op, name, err)
	}
	if err := h.still(op); err != nil {
		unlock()
		return cm, err
	}
	if err := writerAt(d, base); err != nil {
		unlock()
		return cm, fsys.E(op, name, fsys.ErrOpenWriter, err)
	}
	f, tmp, err := l.unlinkIf(d, base, expect, &cm, kp)
	unlock()
	if err != nil {
		return cm, l.fail(op, name, err)
	}
	if !f.match {
		return cm, conflict(op, name, expect.Version, f)
	}
	l.hook(l.opts.Hooks.AfterSwap, h.r.Path)
	if err := kp.take(d, tmp, f); err != nil {
		return cm, l.fail(op, name, err)
	}
	if err := d.sync(); err != nil {
		return cm, l.fail(op, name, err)
	}
	if f.links > 1 {
		cm.Notes = append(cm.Notes, linkNote(name, f.links, "bytes"))
	}
	if h.r.FinalLink {
		cm.Notes = append(cm.Notes, fmt.Sprintf("%s is a symlink; its target %s was removed and the link now dangles", name, h.r.Path))
	}
	return cm, nil
}

// unlinkIf removes base if it holds what expect expects, and reports what
// it found there and the temp name it set the file aside under (which
// still holds it when kp keeps it).
func (l *FS) unlinkIf(d *dirHandle, base string, expect fsys.Expected, cm *fsys.Commit, kp *keeper) (found, string, error) {
	tmp := expect.Temp
	if tmp == "" {
		tmp = l.tempName()
	}
	err := errFallback
	if !l.opts.NoExchange {
		err = renameNoReplace(d, base, d, tmp)
		for try := 1; isExist(err) && expect.Temp == "" && try < tempTries; try++ {
			tmp = l.tempName() // a fresh name that is taken: another one
			err = renameNoReplace(d, base, d, tmp)
		}
	}
	switch {
	case isExist(err):
		return found{}, tmp, tempTaken(tmp, expect.Temp != "", tempTries, err)
	case err == nil:
		f, err := l.check(d, tmp, expect)
		if err == nil && f.match {
			if kp.keeps() {
				return f, tmp, nil // tmp holds the file for kp.take
			}
			return f, tmp, d.unlink(tmp)
		}
		// If the name was taken again meanwhile (by a program that does not
		// take the directory lock), the newer file stays and the one set
		// aside goes: it was superseded.
		if berr := renameNoReplace(d, tmp, d, base); berr != nil {
			d.unlink(tmp)
		}
		d.sync()
		return f, tmp, err
	case err == errFallback || unsupported(err):
		cm.Fallback = true
		f, err := l.check(d, base, expect)
		if err != nil || !f.match {
			return f, tmp, err
		}
		if err := kp.late("no exchange here: the file is unlinked in place"); err != nil {
			return f, tmp, err
		}
		return f, tmp, d.unlink(base)
	case isNotExist(err):
		return found{}, tmp, nil
	}
	return found{}, tmp, err
}

// noClobber moves fb in df to tb in dt unless tb is taken (an error isExist
// reports), where no rename refuses a taken name: a hard link then the
// removal of fb for anything but a directory. For a directory, or where
// hard links are refused, it checks, then renames, which can race; racy
// says so.
func (l *FS) noClobber(df *dirHandle, fb string, dt *dirHandle, tb string) (racy bool, err error) {
	dir, err := df.isDir(fb)
	if err != nil {
		return false, err
	}
	if !dir {
		err := l.linkAt(df, fb, dt, tb)
		switch {
		case err == nil:
			df.unlink(fb)
			return false, nil
		case !noHardLinks(err):
			return false, err
		}
	}
	switch taken, err := dt.taken(tb); {
	case err != nil:
		return true, err
	case taken:
		return true, errExists
	}
	return true, l.renameAt(df, fb, dt, tb)
}

// writerAt is the open-writer check of base in d (openWriter): a
// *fsys.WriterError when another process holds it open for writing, nil
// when none does or the system cannot tell (errNotHere).
func writerAt(d *dirHandle, base string) error {
	if err := openWriter(d, base); err != errNotHere {
		return err
	}
	return nil
}
