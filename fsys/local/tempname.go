package local

import (
	"fmt"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/internal/tempname"
)

var (
	_ fsys.TempFiler  = (*FS)(nil)
	_ fsys.Sweeper    = (*FS)(nil)
	_ fsys.DirSweeper = (*FS)(nil)
)

// TempPrefix starts the name of every temp file this package makes.
const TempPrefix = tempname.Prefix

// IsTempName reports whether name (a base name) is exactly a temp name this
// package makes: TempPrefix, the decimal id of the process that made it (no
// sign, no leading zero, at most 2^31-1), "-", and 16 lower-case hex
// digits. It returns that process id. A user's file that merely starts
// with TempPrefix (".stet-tmp-notes", a ".bak" copy of a temp file) is not
// a temp name.
func IsTempName(name string) (pid int, ok bool) { return tempname.Parse(name) }

// tempName returns a fresh temp name: this process's id and 16 hex digits
// from Options.Rand (crypto/rand by default).
func (l *FS) tempName() string { return l.names.Name() }

// TempName returns a fresh temp file name (IsTempName) for a change the
// caller is about to make: passed as fsys.Expected.Temp to Replace or
// Remove, or to CreateAs, it is the name that change's temp file takes, so
// the caller can record it first (in a write-ahead intent) and remove
// exactly it after a crash (RemoveTemp).
func (l *FS) TempName() string { return l.tempName() }

// checkTemp refuses a caller-chosen temp name this package would not make.
func checkTemp(op, name, temp string) error {
	if temp == "" {
		return nil
	}
	if _, ok := IsTempName(temp); !ok {
		return fsys.E(op, name, fsys.ErrInvalid, fmt.Errorf("%q is not a temp file name", temp))
	}
	return nil
}

// tempTries is how many fresh temp names a commit tries before it gives
// up: with names from crypto/rand a second one is never needed.
const tempTries = 8

// tempTaken is the error of a commit whose temp file name was taken (err,
// an "exists" error): the caller's chosen name, or the last of tries fresh
// ones. Nothing was written or moved.
func tempTaken(name string, chosen bool, tries int, err error) error {
	if chosen {
		return fmt.Errorf("the temp file name %s chosen for the change is taken; nothing was changed: %w", name, err)
	}
	return fmt.Errorf("%d fresh temp file names were taken, the last %s (the random source repeats itself); nothing was changed: %w", tries, name, err)
}
