//go:build unix

package local

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/internal/confine"
)

// chunkSize is how much of a swapped-out file is read at a time to compare.
const chunkSize = 256 << 10

// dirHandle is an open directory beneath the root. Every call on it uses a
// single-component name and does not follow a final symlink.
type dirHandle struct {
	f   *os.File // nil for a bare descriptor (see dir.OpenDir)
	fd  int
	rel string // root-relative path, for messages
}

func (l *FS) openDir(rel string) (*dirHandle, error) {
	f, err := l.root.OpenFile(rel, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	return &dirHandle{f: f, fd: int(f.Fd()), rel: rel}, nil
}

func (d *dirHandle) close() {
	if d.f != nil {
		d.f.Close()
		return
	}
	unix.Close(d.fd)
}

// DefaultLockWait is how long a directory lock is waited for when
// Options.LockWait is 0.
const DefaultLockWait = 5 * time.Second

// lock takes an exclusive flock(2) on the directory for the instant of a
// swap and its check. Every stet process takes it, so their commits in one
// directory never see each other's unchecked bytes; programs that do not
// take it are not held back. Where flock is unsupported it does nothing.
func (l *FS) lock(d *dirHandle) (unlock func(), err error) {
	return l.flock(d, unix.LOCK_EX)
}

// rlock takes a shared flock(2) on the directory: readers hold it while
// they open a file, so they wait out a commit's unchecked swap.
func (l *FS) rlock(d *dirHandle) (unlock func(), err error) {
	return l.flock(d, unix.LOCK_SH)
}

// flock takes the lock how (LOCK_EX or LOCK_SH) on d without blocking in
// the kernel: it polls, backing off from a millisecond to 50 ms, for at
// most Options.LockWait. stet holds these locks for microseconds, so a
// longer wait means another program holds one (flock(1), a backup tool):
// the caller gets a *fsys.BusyError naming the directory rather than a
// call that never returns.
func (l *FS) flock(d *dirHandle, how int) (unlock func(), err error) {
	wait := l.opts.LockWait
	if wait <= 0 {
		wait = DefaultLockWait
	}
	start := time.Now()
	pause := time.Millisecond
	for {
		err := retry(func() error { return unix.Flock(d.fd, how|unix.LOCK_NB) })
		switch {
		case err == nil:
			return func() { unix.Flock(d.fd, unix.LOCK_UN) }, nil
		case err != unix.EWOULDBLOCK:
			return func() {}, nil // no flock here: nothing to wait for
		}
		left := wait - time.Since(start)
		if left <= 0 {
			return nil, &fsys.BusyError{Dir: d.rel, Waited: time.Since(start).Round(time.Millisecond)}
		}
		time.Sleep(min(pause, left))
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// ino returns the inode number of the entry name, or 0.
func (d *dirHandle) ino(name string) uint64 {
	var st unix.Stat_t
	if unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return 0
	}
	return uint64(st.Ino)
}

func (d *dirHandle) sync() error { return syncFile(d.fd) }

func (d *dirHandle) unlink(name string) error {
	return retry(func() error { return unix.Unlinkat(d.fd, name, 0) })
}

func retry(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
}

// meta is what a new temp file takes on before it is swapped in.
type meta struct {
	// perm is set exactly (setuid, setgid and sticky included) when exact;
	// otherwise it passes through the umask like any new file's mode.
	perm  uint32
	exact bool
	// from, when not nil, is the file being replaced: its owner and group
	// (where permitted) and its extended attributes are copied.
	from *unix.Stat_t
	// src is an open descriptor of that file for its extended attributes,
	// or -1.
	src int
	// notes collects what could not be kept.
	notes []string
	// temp is the temp file's name when the caller chose it (TempName);
	// "" makes a fresh one.
	temp string
}

// oldMeta describes the regular file base in d for a replace: its exact
// mode, owner and group, and a descriptor to copy its extended attributes
// from (-1 if it cannot be opened; close with closeSrc). When even that
// fails it falls back to the mode the walk saw.
func oldMeta(d *dirHandle, base string, fallback uint32) *meta {
	m := &meta{perm: fallback, exact: true, src: -1}
	err := retry(func() (err error) {
		m.src, err = unix.Openat(d.fd, base, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		m.src = -1
	}
	var st unix.Stat_t
	if m.src >= 0 {
		err = unix.Fstat(m.src, &st)
	} else {
		err = unix.Fstatat(d.fd, base, &st, unix.AT_SYMLINK_NOFOLLOW)
	}
	if err == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
		m.perm = uint32(st.Mode) & 0o7777
		m.from = &st
	}
	return m
}

func (m *meta) closeSrc() {
	if m.src >= 0 {
		unix.Close(m.src)
		m.src = -1
	}
}

// writeTemp makes a new temp file in d holding data, fsynced, with the
// metadata m asks for, and returns its name and inode number.
//
// The order matters: the bytes first (a write by a non-root owner clears
// setuid), then the owner (chown clears setuid, setgid and file
// capabilities), then the extended attributes, then the mode, set exactly
// with fchmod so that no umask strips bits.
func (l *FS) writeTemp(d *dirHandle, data []byte, m *meta) (string, uint64, error) {
	create := m.perm
	if m.exact {
		create = 0o600
	}
	for try := 0; ; try++ {
		name := m.temp
		if name == "" {
			name = l.tempName()
		}
		var fd int
		err := retry(func() (err error) {
			fd, err = unix.Openat(d.fd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, create)
			return err
		})
		if err == unix.EEXIST && try+1 < tempTries && m.temp == "" {
			continue
		}
		if err == unix.EEXIST {
			return "", 0, tempTaken(name, m.temp != "", try+1, err)
		}
		if err != nil {
			return "", 0, err
		}
		var st unix.Stat_t
		err = unix.Fstat(fd, &st)
		if err == nil {
			err = writeAll(fd, data)
		}
		if err == nil && m.from != nil {
			m.keepOwner(fd, &st)
			err = copyXattrs(m.src, fd)
		}
		if err == nil && m.exact {
			err = retry(func() error { return unix.Fchmod(fd, m.perm) })
		}
		if err == nil {
			err = syncFile(fd)
		}
		if cerr := unix.Close(fd); err == nil {
			err = cerr
		}
		if err != nil {
			d.unlink(name)
			return "", 0, err
		}
		return name, uint64(st.Ino), nil
	}
}

// keepOwner gives the temp file open at fd (described by st) the owner and
// group of m.from where this process may: all of it as root, the group
// alone for an owner who belongs to it. What could not be kept is noted.
func (m *meta) keepOwner(fd int, st *unix.Stat_t) {
	uid, gid := m.from.Uid, m.from.Gid
	if st.Uid == uid && st.Gid == gid {
		return
	}
	err := retry(func() error { return unix.Fchown(fd, int(uid), int(gid)) })
	if err == nil {
		return
	}
	if st.Gid != gid && retry(func() error { return unix.Fchown(fd, -1, int(gid)) }) == nil {
		st.Gid = gid
	}
	m.notes = append(m.notes, fmt.Sprintf("the owner %d:%d could not be kept (%v): the file is now owned by %d:%d", uid, gid, err, st.Uid, st.Gid))
}

func writeAll(fd int, data []byte) error {
	for len(data) > 0 {
		n, err := unix.Write(fd, data)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

// found is what a compare saw in a directory entry.
type found struct {
	match   bool
	version fsys.Version // when !match and a regular file was there
	links   int
	ino     uint64 // of the file compared
}

// check opens the entry name of d without following it and reports whether
// it is a regular file holding what expect expects. Nothing there, a
// symlink or a special file is a mismatch, not an error.
func (l *FS) check(d *dirHandle, name string, expect fsys.Expected) (found, error) {
	var fd int
	err := retry(func() (err error) {
		fd, err = unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		return err
	})
	switch err {
	case nil:
	case unix.ENOENT, unix.ELOOP, unix.ENXIO:
		return found{}, nil
	default:
		return found{}, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return found{}, err
	}
	f := found{links: int(st.Nlink), ino: uint64(st.Ino)}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return f, nil
	}
	if expect.Bytes == nil {
		f.version, err = l.versionOf(fd)
		f.match = err == nil && f.version == expect.Version
		return f, err
	}
	f.match, err = l.matches(fd, st.Size, expect.Bytes)
	if err == nil && !f.match {
		f.version, err = l.versionOf(fd)
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

// matches compares the file open at fd, of the given size, with want,
// chunk by chunk, stopping at the first difference: no hashing.
func (l *FS) matches(fd int, size int64, want []byte) (bool, error) {
	if int64(len(want)) != size {
		return false, nil
	}
	bp := l.buf()
	defer l.bufPool.Put(bp)
	b := *bp
	for off := 0; off < len(want); {
		n := min(len(b), len(want)-off)
		m, err := preadFull(fd, b[:n], int64(off))
		if err != nil {
			return false, err
		}
		if m < n || !bytes.Equal(b[:n], want[off:off+n]) {
			return false, nil
		}
		off += n
	}
	// Nothing past the expected end.
	m, err := preadFull(fd, b[:1], size)
	return m == 0, err
}

// versionOf hashes the whole file open at fd.
func (l *FS) versionOf(fd int) (fsys.Version, error) {
	bp := l.buf()
	defer l.bufPool.Put(bp)
	b := *bp
	h := sha256.New()
	for off := int64(0); ; {
		m, err := preadFull(fd, b, off)
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

// preadFull reads into b from off until b is full or the file ends.
func preadFull(fd int, b []byte, off int64) (int, error) {
	n := 0
	for n < len(b) {
		m, err := unix.Pread(fd, b[n:], off+int64(n))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			break
		}
		n += m
	}
	return n, nil
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
// (see Hold): the walk, the open directory (the caller closes it) and the
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
// Perm 0 makes a new file like any other: 0o644 under the process umask. It never replaces anything:
// the temp file is renamed with RENAME_NOREPLACE or hard-linked to name, and
// an existing entry, a dangling symlink included, fails with fsys.ErrExists.
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
	exact := perm != 0
	if !exact {
		perm = 0o644
	}
	tmp, _, err := l.writeTemp(d, data, &meta{perm: unixPerm(perm), exact: exact, src: -1, temp: exp.Temp})
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
		err = renameNoReplace(d.fd, tmp, d.fd, base)
	}
	cm := fsys.Commit{Resolved: h.r.Path}
	if err == errFallback || unsupported(err) {
		cm.Fallback, err = noClobber(d, tmp, d, base)
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
// anyone up to the swap is never lost. Elsewhere the file is compared, then
// renamed over (Commit.Fallback).
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
	kp.plan(l, m.from)
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
	if err := openWriter(d, base); err != nil {
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
		err = exchange(d.fd, tmp, base)
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
		if berr := exchange(d.fd, tmp, base); berr != nil {
			return f, fmt.Errorf("the swapped-out file could not be checked or swapped back; it is kept as %s: %w",
				tmp, errors.Join(err, berr))
		}
		// If what came back is not ours, a program that does not take the
		// directory lock wrote over the name in the meantime: its bytes are
		// newer than the ones found, so they stay.
		if d.ino(tmp) != ino {
			exchange(d.fd, tmp, base)
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
		if err := retry(func() error { return unix.Renameat(d.fd, tmp, d.fd, base) }); err != nil {
			d.unlink(tmp)
			return f, err
		}
		return f, nil
	default:
		d.unlink(tmp)
		if err == unix.ENOENT {
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
	fd, err := dupCloexec(d.fd)
	if err != nil {
		d.unlink(tmp)
		return
	}
	var once sync.Once
	expect.Discard(func() {
		once.Do(func() {
			retry(func() error { return unix.Unlinkat(fd, tmp, 0) })
			unix.Close(fd)
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
	if err := openWriter(d, base); err != nil {
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
		err = renameNoReplace(d.fd, base, d.fd, tmp)
		for try := 1; err == unix.EEXIST && expect.Temp == "" && try < tempTries; try++ {
			tmp = l.tempName() // a fresh name that is taken: another one
			err = renameNoReplace(d.fd, base, d.fd, tmp)
		}
	}
	switch {
	case err == unix.EEXIST:
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
		if berr := renameNoReplace(d.fd, tmp, d.fd, base); berr != nil {
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
	case err == unix.ENOENT:
		return found{}, tmp, nil
	}
	return found{}, tmp, err
}
