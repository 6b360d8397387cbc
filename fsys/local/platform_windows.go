package local

import (
	"errors"

	"golang.org/x/sys/windows"
)

// The primitives of Windows: no rename exchanges two names or refuses a
// taken one, so each answers errNotHere and the sequence compares, then
// renames (or links, then removes), under the directory lock; no cheap
// call sees a writer that holds a file open, though one that holds it
// without delete sharing makes the rename fail.

var platform = primitives{
	link:       "`CreateHardLink` (`Root.Link`)",
	flush:      "`FlushFileBuffers` (`File.Sync`)",
	lock:       "`LockFileEx` on one byte of a per-user lock file",
	still:      "volume serial number and file index",
	writerElse: "a file held open without delete sharing cannot be renamed over: the call fails, nothing changes",
}

// exchange has no call here: errNotHere.
func exchange(*dirHandle, string, string) error { return errNotHere }

func exchangeAt(*dirHandle, string, *dirHandle, string) error { return errNotHere }

// renameNoReplace has no call here: errNotHere, and the sequence links,
// then removes the temp name.
func renameNoReplace(*dirHandle, string, *dirHandle, string) error { return errNotHere }

func unsupported(err error) bool { return err == errNotHere }

// noHardLinks reports whether err from a hard link says the filesystem
// takes none (FAT, exFAT).
func noHardLinks(err error) bool {
	return errors.Is(err, windows.ERROR_NOT_SUPPORTED) || errors.Is(err, windows.ERROR_INVALID_FUNCTION)
}

// openWriter cannot tell here whether another process holds base open for
// writing: errNotHere.
func openWriter(*dirHandle, string) error { return errNotHere }

// keeper is, on Unix, the handover of the file a change displaces to a
// store (keep.go). The handover needs the old file intact after an
// exchange, which Windows lacks: FS is no fsys.Keeper there, every keeper
// the sequence sees is nil, and these do nothing.
type keeper struct{}

func (*keeper) planOld(*FS, *meta)                   {}
func (*keeper) planAt(*FS, *dirHandle, string)       {}
func (*keeper) early() error                         { return nil }
func (*keeper) late(string) error                    { return nil }
func (*keeper) keeps() bool                          { return false }
func (*keeper) take(*dirHandle, string, found) error { return nil }
