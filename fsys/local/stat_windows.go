package local

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"

	"github.com/stet-dev/stet/fsys"
)

// Open flags that only mean something on Unix.
const (
	oDirectory = 0
	oNonblock  = 0
)

// sysInfo adds nothing on Windows: the FileInfo of a Root's Lstat carries
// no file index, so Links stays 1 and ID empty.
func sysInfo(fs.FileInfo, *fsys.Info) {}

// sysPerm has no stat record to read: permOf derives the bits from the
// FileMode (Windows keeps only a read-only flag).
func sysPerm(fs.FileInfo) (uint32, bool) { return 0, false }

// sysKind maps the Windows error codes that the errno cases of kindOf
// cannot see.
func sysKind(err error) error {
	var errno windows.Errno
	if !errors.As(err, &errno) {
		return nil
	}
	switch errno {
	case windows.ERROR_FILE_NOT_FOUND, windows.ERROR_PATH_NOT_FOUND:
		return fsys.ErrNotFound
	case windows.ERROR_FILE_EXISTS, windows.ERROR_ALREADY_EXISTS:
		return fsys.ErrExists
	case windows.ERROR_DIRECTORY:
		return fsys.ErrNotDir
	case windows.ERROR_DIR_NOT_EMPTY:
		return fsys.ErrNotEmpty
	case windows.ERROR_INVALID_NAME, windows.ERROR_BAD_PATHNAME, windows.ERROR_FILENAME_EXCED_RANGE,
		windows.ERROR_CANT_RESOLVE_FILENAME:
		return fsys.ErrInvalid
	}
	return nil
}

// versionOfFile hashes the whole of the open file f.
func (l *FS) versionOfFile(f *os.File) (fsys.Version, error) { return l.versionOf(f) }

// matchesFile compares the open file f, of the given size, with want.
func (l *FS) matchesFile(f *os.File, size int64, want []byte) (bool, error) {
	return l.matches(f, size, want)
}
