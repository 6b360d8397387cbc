package memfs

import (
	"errors"
	"fmt"

	"github.com/stet-dev/stet/fsys"
)

// notOnDisk is why a memfs never adopts a displaced file.
const notOnDisk = "an in-memory file cannot be renamed into a store on disk"

// ReplaceKeep is Replace that keeps the bytes it displaces (fsys.Keeper)
// the one way an in-memory tree can: keep.Save copies them once the new
// bytes are ready (after expect.Ready) and before the swap, as fsys/local
// does where it cannot adopt. A conflict after the copy leaves the copy.
func (m *FS) ReplaceKeep(name string, data []byte, expect fsys.Expected, keep fsys.Keep) (fsys.Commit, fsys.Kept, error) {
	if keep.Save == nil {
		return fsys.Commit{}, fsys.Kept{}, fsys.E("replace", name, fsys.ErrInvalid, errors.New("a Keep without Save"))
	}
	kept := fsys.Kept{Why: notOnDisk}
	cm, err := m.Replace(name, data, saveFirst(expect, keep, &kept))
	return cm, kept, err
}

// RemoveKeep is Remove that keeps the bytes it removes, as ReplaceKeep.
func (m *FS) RemoveKeep(name string, expect fsys.Expected, keep fsys.Keep) (fsys.Commit, fsys.Kept, error) {
	if keep.Save == nil {
		return fsys.Commit{}, fsys.Kept{}, fsys.E("remove", name, fsys.ErrInvalid, errors.New("a Keep without Save"))
	}
	kept := fsys.Kept{Why: notOnDisk}
	cm, err := m.Remove(name, saveFirst(expect, keep, &kept))
	return cm, kept, err
}

// RenameKeep is Rename over the file at to that keeps the bytes it
// replaces, as ReplaceKeep.
func (m *FS) RenameKeep(from, to string, src, dst fsys.Expected, keep fsys.Keep) (fsys.Commit, fsys.Kept, error) {
	if keep.Save == nil {
		return fsys.Commit{}, fsys.Kept{}, fsys.E("rename", to, fsys.ErrInvalid, errors.New("a Keep without Save"))
	}
	kept := fsys.Kept{Why: notOnDisk}
	over := saveFirst(dst, keep, &kept)
	cm, err := m.Rename(from, to, src, &over)
	return cm, kept, err
}

// saveFirst is expect with a Ready that also runs keep.Save.
func saveFirst(expect fsys.Expected, keep fsys.Keep, kept *fsys.Kept) fsys.Expected {
	ready := expect.Ready
	expect.Ready = func() error {
		if ready != nil {
			if err := ready(); err != nil {
				return err
			}
		}
		if err := keep.Save(); err != nil {
			return fmt.Errorf("saving the previous content (nothing was changed): %w", err)
		}
		kept.Saved = true
		return nil
	}
	return expect
}
