package fsys

import (
	"io/fs"
	"os"
)

// Keep says where a replace, a delete or a move over a file puts the file
// it displaces, so that its bytes are kept (for undo) without being
// written a second time.
//
// A provider that swaps by exchange (fsys/local on Linux and macOS) holds
// the displaced file, intact and already durable, under its temp name right
// after the swap. Instead of unlinking it, a Keeper renames it into Dir
// under Name (one rename within one filesystem), makes the rename durable
// on its own side (the file's directory is fsynced, as after every swap),
// and calls Adopt, which finishes the handover on the receiving side. Where
// that cannot be done (Dir nil or on another filesystem, no exchange, the
// old file has other hard links or another owner, Adopt refused), it calls
// Save instead, which copies the bytes the caller holds, at an instant when
// they are still durable on disk: before a swap that would drop them (a
// rename over the file), or after an exchange while the displaced file
// still lies under its temp name.
type Keep struct {
	// Dir is an open directory of the receiving store on the local
	// filesystem, Name the base name the displaced file is renamed to in
	// it. Nil: never adopt, always Save.
	Dir  *os.File
	Name string
	// Adopt is called once the displaced file is Dir/Name, with what the
	// provider saw of it just before the rename (its size and identity,
	// for os.SameFile). It makes the file the store's own and durable. An
	// error makes the provider Save instead.
	Adopt func(seen fs.FileInfo) error
	// Save copies the displaced bytes into the store. It is required: the
	// caller holds the bytes (Expected.Bytes, or what it read). An error
	// from it before the swap aborts the change (nothing moved); after the
	// exchange, the displaced file is left under its temp name and the
	// error says so.
	Save func() error
	// Open, when not nil, gives Dir, Name and Adopt late: the provider
	// calls it once, after the new bytes are durable in their temp file
	// (after Expected.Ready) and before it uses them, and takes those
	// three fields from the Keep it returns, so the store's own durable
	// preparation (a new directory for the blob) runs beside the write of
	// the temp file. An error from it aborts the change, nothing moved.
	Open func() (Keep, error)
}

// Kept reports what became of the displaced file.
type Kept struct {
	// Adopted is true when the displaced file itself went to the store
	// (Keep.Adopt returned nil); Saved when Keep.Save copied it instead.
	// Both are false only when the change failed before either.
	Adopted, Saved bool
	// Why says why the file was not adopted, when it was not.
	Why string
}

// Keeper is an optional capability: Replace, Remove and a Rename over a
// file that hand the file they displace to a store (Keep) instead of
// unlinking it. Everything else is as Replace, Remove and Rename; a
// conflict or any failure before the swap leaves the files and the store
// as they were (a Save that already ran leaves its copy, which nothing
// names).
type Keeper interface {
	ReplaceKeep(name string, data []byte, expect Expected, keep Keep) (Commit, Kept, error)
	RemoveKeep(name string, expect Expected, keep Keep) (Commit, Kept, error)
	// RenameKeep is Rename(from, to, src, &dst) of a file over the file
	// at to, which holds dst: the file it replaces is handed to keep.
	RenameKeep(from, to string, src, dst Expected, keep Keep) (Commit, Kept, error)
}

// ReplaceKeeping asks p's Keeper if it has one; otherwise it calls
// keep.Save, then p.Replace: the copy is made before anything moves.
func ReplaceKeeping(p Provider, name string, data []byte, expect Expected, keep Keep) (Commit, Kept, error) {
	if k, ok := p.(Keeper); ok {
		return k.ReplaceKeep(name, data, expect, keep)
	}
	if err := keep.Save(); err != nil {
		return Commit{}, Kept{}, err
	}
	cm, err := p.Replace(name, data, expect)
	return cm, Kept{Saved: true, Why: "the backend cannot keep files"}, err
}

// RemoveKeeping asks p's Keeper if it has one; otherwise it calls
// keep.Save, then p.Remove.
func RemoveKeeping(p Provider, name string, expect Expected, keep Keep) (Commit, Kept, error) {
	if k, ok := p.(Keeper); ok {
		return k.RemoveKeep(name, expect, keep)
	}
	if err := keep.Save(); err != nil {
		return Commit{}, Kept{}, err
	}
	cm, err := p.Remove(name, expect)
	return cm, Kept{Saved: true, Why: "the backend cannot keep files"}, err
}

// RenameKeeping asks p's Keeper if it has one; otherwise it calls
// keep.Save, then p.Rename(from, to, src, &dst).
func RenameKeeping(p Provider, from, to string, src, dst Expected, keep Keep) (Commit, Kept, error) {
	if k, ok := p.(Keeper); ok {
		return k.RenameKeep(from, to, src, dst, keep)
	}
	if err := keep.Save(); err != nil {
		return Commit{}, Kept{}, err
	}
	cm, err := p.Rename(from, to, src, &dst)
	return cm, Kept{Saved: true, Why: "the backend cannot keep files"}, err
}
