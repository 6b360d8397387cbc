//go:build unix

package local

import (
	"fmt"
	"io/fs"

	"golang.org/x/sys/unix"
)

// The temp file of a commit on Unix systems: its bytes, then the old
// file's owner, extended attributes and exact mode, then fsync.

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

// createMeta is the metadata of a new file: the mode perm set exactly,
// or, for perm 0, 0o644 through the umask like any new file's.
func createMeta(perm fs.FileMode, temp string) *meta {
	exact := perm != 0
	if !exact {
		perm = 0o644
	}
	return &meta{perm: unixPerm(perm), exact: exact, src: -1, temp: temp}
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
