package fsys

import (
	"errors"
	"io/fs"
)

// TempFiler is an optional capability of a Provider whose commits write
// through temp files beside the file they change (as fsys/local does): it
// names a change's temp file ahead, so that a caller can record the name
// durably (in a write-ahead intent) before the change and, after a crash,
// remove exactly that file and nothing else.
type TempFiler interface {
	// TempName returns a fresh temp file base name, one the provider
	// would make itself. Passed as Expected.Temp to Replace or Remove, or
	// to CreateAs, it is the name that change's temp file takes.
	TempName() string
	// CreateAs is Create writing through the temp file named temp (a name
	// TempName returned; "" for a fresh one). A name the provider would
	// never make fails with ErrInvalid and a taken one with ErrExists,
	// changing nothing.
	CreateAs(name string, data []byte, perm fs.FileMode, temp string) (Commit, error)
	// RemoveTemp removes the one temp file name: a root-relative path
	// whose base name is a temp name, such as one an intent recorded. Its
	// directory is reached through the confined walk; the file itself is
	// not followed. A name that is not a temp name fails with ErrInvalid,
	// anything but a regular file with ErrNotRegular, a missing file with
	// ErrNotFound (already gone). Whether the process that made it is
	// still running is the caller's business.
	RemoveTemp(name string) error
}

// TempName returns a fresh temp name from p's TempFiler, or "" when p has
// none: it writes through no temp files, and an Expected.Temp of "" asks
// for none.
func TempName(p Provider) string {
	if t, ok := p.(TempFiler); ok {
		return t.TempName()
	}
	return ""
}

// CreateAs creates name through p's TempFiler, writing through the temp
// file temp, or with p.Create when p has none (which, making no temp
// files, ignores temp).
func CreateAs(p Provider, name string, data []byte, perm fs.FileMode, temp string) (Commit, error) {
	if t, ok := p.(TempFiler); ok {
		return t.CreateAs(name, data, perm, temp)
	}
	return p.Create(name, data, perm)
}

// RemoveTemp removes the temp file name through p's TempFiler. A provider
// without one made no temp files, so no name is one of them: it fails with
// ErrInvalid and removes nothing.
func RemoveTemp(p Provider, name string) error {
	if t, ok := p.(TempFiler); ok {
		return t.RemoveTemp(name)
	}
	return E("remove temp", name, ErrInvalid, errNoTemps)
}

var errNoTemps = errors.New("this provider makes no temp files")

// Sweeper is an optional capability of a Provider that writes through temp
// files: Sweep removes those that processes left under the root when they
// died mid-commit, and returns how many it removed. It removes only
// regular files named exactly as the provider names its temp files, whose
// maker is gone; it never follows a symlink to a directory. skip, when not
// nil, is asked about every directory first (its root-relative path, "."
// for the root), and a directory it skips is neither read nor descended
// into: a caller keeps the sweep out of trees it must not touch.
type Sweeper interface {
	Sweep(skip func(dir string) bool) (removed int, err error)
}

// Sweep sweeps p with its Sweeper, or removes nothing when p has none: a
// provider without temp files leaves none behind.
func Sweep(p Provider, skip func(dir string) bool) (removed int, err error) {
	if s, ok := p.(Sweeper); ok {
		return s.Sweep(skip)
	}
	return 0, nil
}

// DirSweeper is an optional capability of a Provider that writes through
// temp files: SweepDir is Sweeper's Sweep for the one directory name
// (following symlinks inside the root to reach it), without descending. It
// suits a commit about to change a file there, since temp files only ever
// stand beside the file a commit changes.
type DirSweeper interface {
	SweepDir(name string) (removed int, err error)
}

// SweepDir sweeps the directory name of p with its DirSweeper, or removes
// nothing when p has none.
func SweepDir(p Provider, name string) (removed int, err error) {
	if s, ok := p.(DirSweeper); ok {
		return s.SweepDir(name)
	}
	return 0, nil
}
