//go:build unix

package local

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// The directory handle of Unix systems and its primitives for the commit
// sequence (commit.go): single-component *at calls on a directory
// descriptor obtained from the Root, none of which follows a final
// symlink.

// dirHandle is an open directory beneath the root. Every call on it uses a
// single-component name and does not follow a final symlink.
type dirHandle struct {
	f   *os.File // nil for a bare descriptor (see dir.OpenDir)
	fd  int
	rel string // root-relative path, for messages
}

func (l *FS) openDir(rel string) (*dirHandle, error) {
	if fd, ok := l.beneath.openDir(l.root, rel); ok {
		return &dirHandle{fd: fd, rel: rel}, nil
	}
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

// dup returns a handle of the same directory that outlives d (a
// descriptor duplicated close-on-exec), for a removal that runs after the
// call returns (discard).
func (d *dirHandle) dup() (*dirHandle, error) {
	fd, err := dupCloexec(d.fd)
	if err != nil {
		return nil, err
	}
	return &dirHandle{fd: fd, rel: d.rel}, nil
}

// sync flushes the directory, and with it the renames made in it.
func (d *dirHandle) sync() error { return syncFile(d.fd) }

func (d *dirHandle) unlink(name string) error {
	return retry(func() error { return unix.Unlinkat(d.fd, name, 0) })
}

// ino returns the inode number of the entry name, or 0.
func (d *dirHandle) ino(name string) uint64 {
	var st unix.Stat_t
	if unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return 0
	}
	return uint64(st.Ino)
}

// isDir reports whether the entry name is a directory, not followed.
func (d *dirHandle) isDir(name string) (bool, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return false, err
	}
	return st.Mode&unix.S_IFMT == unix.S_IFDIR, nil
}

// taken reports whether anything, a dangling symlink included, is at name.
func (d *dirHandle) taken(name string) (bool, error) {
	var st unix.Stat_t
	switch err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err {
	case nil:
		return true, nil
	case unix.ENOENT:
		return false, nil
	default:
		return false, err
	}
}

// id is the device and inode of the open directory.
func (d *dirHandle) id() (fileID, error) {
	var st unix.Stat_t
	if err := unix.Fstat(d.fd, &st); err != nil {
		return fileID{}, err
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, nil
}

// idAt is the device and inode of the directory at rel now, looked up
// through the confined walk (os.Root refuses a symlink that leaves).
func (l *FS) idAt(rel string) (fileID, error) {
	fi, err := l.root.Stat(rel)
	if err != nil {
		return fileID{}, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, errors.New("no device and inode")
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, nil
}

// renameAt renames a in df to b in dt, replacing what b names.
func (l *FS) renameAt(df *dirHandle, a string, dt *dirHandle, b string) error {
	return retry(func() error { return unix.Renameat(df.fd, a, dt.fd, b) })
}

// linkAt makes b in dt a hard link of a in df; it fails if b is taken.
func (l *FS) linkAt(df *dirHandle, a string, dt *dirHandle, b string) error {
	return retry(func() error { return unix.Linkat(df.fd, a, dt.fd, b, 0) })
}

// fileRef is an open file the compare reads (preadFull).
type fileRef = int

// openEntry opens the entry name of d for reading without following it
// (O_NOFOLLOW, O_NONBLOCK: a FIFO does not block) and describes it. ok is
// false, with no error, when nothing is there, or a symlink or a FIFO
// without a writer. The caller closes e.f (closeRef).
func (d *dirHandle) openEntry(name string) (e opened, ok bool, err error) {
	var fd int
	err = retry(func() (err error) {
		fd, err = unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		return err
	})
	switch err {
	case nil:
	case unix.ENOENT, unix.ELOOP, unix.ENXIO:
		return opened{}, false, nil
	default:
		return opened{}, false, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return opened{}, false, err
	}
	return opened{
		f:       fd,
		size:    st.Size,
		links:   int(st.Nlink),
		ino:     uint64(st.Ino),
		regular: st.Mode&unix.S_IFMT == unix.S_IFREG,
	}, true, nil
}

func closeRef(fd fileRef) { unix.Close(fd) }

// preadFull reads into b from off until b is full or the file ends.
func preadFull(fd fileRef, b []byte, off int64) (int, error) {
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

func retry(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
}

// errExists is what noClobber answers for a taken name.
var errExists error = unix.EEXIST

// isExist and isNotExist tell the errors of a rename apart.
func isExist(err error) bool    { return errors.Is(err, unix.EEXIST) }
func isNotExist(err error) bool { return errors.Is(err, unix.ENOENT) }

// oneEntry reports whether a and b, as the walk saw them, are one directory
// entry spelled two ways, as on a filesystem that folds letter case or
// Unicode normalization (APFS and HFS+ by default, ext4 casefold): the same
// file, with a single link. Exchanging such a pair moves nothing, and
// unlinking the "old target" afterwards would delete the file.
func oneEntry(a, b fs.FileInfo) bool {
	st, ok := a.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 1 && os.SameFile(a, b)
}
