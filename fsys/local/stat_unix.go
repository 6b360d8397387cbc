//go:build unix

package local

import (
	"io/fs"
	"os"
	"strconv"
	"syscall"

	"github.com/stet-dev/stet/fsys"
)

// Open flags that only mean something here.
const (
	oDirectory = syscall.O_DIRECTORY
	oNonblock  = syscall.O_NONBLOCK
)

// sysInfo fills in the hard-link count and the device:inode ID of in from
// fi's stat record.
func sysInfo(fi fs.FileInfo, in *fsys.Info) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		in.Links = int(st.Nlink)
		in.ID = strconv.FormatUint(uint64(st.Dev), 10) + ":" + strconv.FormatUint(uint64(st.Ino), 10)
	}
}

// sysPerm returns the permission bits of fi's stat record, setuid, setgid
// and sticky included.
func sysPerm(fi fs.FileInfo) (uint32, bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint32(st.Mode) & 0o7777, true
	}
	return 0, false
}

// sysKind has nothing to add on Unix: kindOf knows the errno values.
func sysKind(error) error { return nil }

// versionOfFile hashes the whole of the open file f.
func (l *FS) versionOfFile(f *os.File) (fsys.Version, error) { return l.versionOf(int(f.Fd())) }

// matchesFile compares the open file f, of the given size, with want.
func (l *FS) matchesFile(f *os.File, size int64, want []byte) (bool, error) {
	return l.matches(int(f.Fd()), size, want)
}
