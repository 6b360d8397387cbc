//go:build unix

package local

import (
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stet-dev/stet/fsys"
)

var (
	_ fsys.TypeLister = (*FS)(nil)
	_ fsys.EachOpener = (*dir)(nil)
)

// listBuf is ReadDirTypes' scratch: the getdents buffer and the entries
// before they are sorted.
type listBuf struct {
	b    []byte
	ents []entry
}

type entry struct {
	name string
	typ  fsys.Type
}

// listBufs holds listBufs for ReadDirTypes, which a search calls once per
// directory.
var listBufs = sync.Pool{New: func() any { return &listBuf{b: make([]byte, max(direntBufSize, 1))} }}

// ReadDirTypes lists the directory at name as ReadDir does, with only each
// entry's name and type, which the directory's own records give: no entry
// is stat'ed (except on filesystems that do not record types).
func (l *FS) ReadDirTypes(name string) ([]fsys.Info, error) {
	const op = "list"
	r, err := l.walkDir(op, name)
	if err != nil {
		return nil, err
	}
	d, err := l.openDir(r.Path)
	if err != nil {
		return nil, l.fail(op, name, err)
	}
	defer d.close()
	return l.readDirTypes(d, name)
}

// ReadDirTypes lists the open directory as FS.ReadDirTypes does.
func (d *dir) ReadDirTypes() ([]fsys.Info, error) {
	if d.listed { // from the start again
		if _, err := unix.Seek(d.d.fd, 0, 0); err != nil {
			return nil, d.l.fail("list", d.name, &os.PathError{Op: "seek", Path: d.name, Err: err})
		}
	}
	d.listed = true
	return d.l.readDirTypes(d.d, d.name)
}

func (l *FS) readDirTypes(d *dirHandle, name string) ([]fsys.Info, error) {
	lb := listBufs.Get().(*listBuf)
	defer func() {
		clear(lb.ents) // keeps no names alive
		lb.ents = lb.ents[:0]
		listBufs.Put(lb)
	}()
	ents := lb.ents // sorted small, then made Infos once
	err := eachEntry(d.fd, lb.b, func(n string, typ fsys.Type) error {
		ents = append(ents, entry{n, typ})
		return nil
	})
	lb.ents = ents
	if err != nil {
		return nil, l.fail("list", name, &os.PathError{Op: "getdents", Path: name, Err: err})
	}
	slices.SortFunc(ents, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	out := make([]fsys.Info, len(ents))
	for i, e := range ents {
		out[i] = fsys.Info{Name: e.name, Type: e.typ, Links: 1}
	}
	return out, nil
}

// OpenDir opens the subdirectory name of the directory with openat(2) and
// O_NOFOLLOW: the entry of that name in this directory, never a symlink's
// target, so a walk that goes down from an open directory stays beneath
// it whatever is swapped in on the way.
func (d *dir) OpenDir(name string) (fsys.Dir, error) {
	const op = "list"
	full := path.Join(d.name, name)
	if !fsys.ValidEntryName(name) {
		return nil, fsys.E(op, full, fsys.ErrInvalid, nil)
	}
	var fd int
	err := retry(func() (err error) {
		fd, err = unix.Openat(d.d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		return err
	})
	if err == unix.ELOOP || err == unix.ENOTDIR {
		return nil, fsys.E(op, full, fsys.ErrNotDir, err)
	}
	if err != nil {
		return nil, d.l.fail(op, full, &os.PathError{Op: "openat", Path: full, Err: err})
	}
	return &dir{l: d.l, d: &dirHandle{fd: fd, rel: path.Join(d.d.rel, name)}, name: full}, nil
}

// OpenEach opens names in the directory as Open opens each, under one hold
// of the directory's shared lock for all the opens (the lock guards the
// open, not the reads: once open, a descriptor's bytes are fixed), then
// describes, hands over and closes them one at a time. The readers are
// bare descriptors, not *os.File: no poller registration per file.
func (d *dir) OpenEach(names []string, fn func(i int, r io.Reader, info fsys.Info, err error) error) error {
	var fdArr [32]int // a search's batch fits: no allocation
	var errArr [32]error
	fds, errs := fdArr[:0], errArr[:0]
	if len(names) > len(fdArr) {
		fds, errs = make([]int, 0, len(names)), make([]error, 0, len(names))
	}
	fds, errs = fds[:len(names)], errs[:len(names)]
	unlock, err := d.l.rlock(d.d)
	if err != nil {
		for i, name := range names {
			if err := fn(i, nil, fsys.Info{}, d.l.fail("read", path.Join(d.name, name), err)); err != nil {
				return err
			}
		}
		return nil
	}
	for i, name := range names {
		fds[i], errs[i] = d.openat(name)
	}
	unlock()
	defer func() {
		for _, fd := range fds {
			if fd >= 0 {
				unix.Close(fd)
			}
		}
	}()
	var r fdReader
	for i, name := range names {
		if errs[i] != nil {
			if err := fn(i, nil, fsys.Info{}, errs[i]); err != nil {
				return err
			}
			continue
		}
		info, err := d.statFile(fds[i], name)
		if err == nil {
			r = fdReader{fd: fds[i], dir: d.name, name: name}
			err = fn(i, &r, info, nil)
		} else {
			err = fn(i, nil, fsys.Info{}, err)
		}
		unix.Close(fds[i])
		fds[i] = -1
		if err != nil {
			return err
		}
	}
	return nil
}

// openat opens the entry name of the directory for reading without
// following a symlink and without blocking on a FIFO; the caller holds the
// directory's shared lock. It returns -1 and the error that refused it.
func (d *dir) openat(name string) (int, error) {
	const op = "read"
	if !fsys.ValidEntryName(name) {
		return -1, fsys.E(op, path.Join(d.name, name), fsys.ErrInvalid, nil)
	}
	var fd int
	err := retry(func() (err error) {
		fd, err = unix.Openat(d.d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		return err
	})
	if err == nil {
		return fd, nil
	}
	full := path.Join(d.name, name)
	if err == unix.ELOOP {
		return -1, fsys.E(op, full, fsys.ErrNotRegular, err)
	}
	return -1, d.l.fail(op, full, &os.PathError{Op: "openat", Path: full, Err: err})
}

// statFile describes the file open at fd from fstat(2) and refuses
// anything but a regular file, as confine.NeedFile does.
func (d *dir) statFile(fd int, name string) (fsys.Info, error) {
	const op = "read"
	var st unix.Stat_t
	if err := retry(func() error { return unix.Fstat(fd, &st) }); err != nil {
		full := path.Join(d.name, name)
		return fsys.Info{}, d.l.fail(op, full, &os.PathError{Op: "fstat", Path: full, Err: err})
	}
	info := infoOfStat(name, &st)
	switch info.Type {
	case fsys.TypeFile:
		return info, nil
	case fsys.TypeDir:
		return fsys.Info{}, fsys.E(op, path.Join(d.name, name), fsys.ErrIsDir, nil)
	}
	return fsys.Info{}, fsys.E(op, path.Join(d.name, name), fsys.ErrNotRegular, nil)
}

// fdReader reads a file open at a bare descriptor (OpenEach closes it);
// dir and name name it in errors.
type fdReader struct {
	fd        int
	dir, name string
}

func (f *fdReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := unix.Read(f.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, &os.PathError{Op: "read", Path: path.Join(f.dir, f.name), Err: err}
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// typeOfMode maps the file type bits of a stat mode to an fsys.Type.
func typeOfMode(mode uint32) fsys.Type {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return fsys.TypeFile
	case unix.S_IFDIR:
		return fsys.TypeDir
	case unix.S_IFLNK:
		return fsys.TypeSymlink
	}
	return fsys.TypeOther
}

// infoOfStat is infoOf for a raw stat record: the same Info, without the
// os.FileInfo in between.
func infoOfStat(name string, st *unix.Stat_t) fsys.Info {
	mode := uint32(st.Mode)
	perm := fs.FileMode(mode & 0o777)
	if mode&syscall.S_ISUID != 0 {
		perm |= fs.ModeSetuid
	}
	if mode&syscall.S_ISGID != 0 {
		perm |= fs.ModeSetgid
	}
	if mode&syscall.S_ISVTX != 0 {
		perm |= fs.ModeSticky
	}
	in := fsys.Info{
		Name:    name,
		Type:    typeOfMode(mode),
		Mode:    perm,
		Links:   1,
		ModTime: time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec)),
	}
	if in.Type == fsys.TypeFile {
		in.Size = st.Size
	}
	if in.Type != fsys.TypeDir {
		in.Links = int(st.Nlink)
		in.ID = strconv.FormatUint(uint64(st.Dev), 10) + ":" + strconv.FormatUint(uint64(st.Ino), 10)
	}
	return in
}
