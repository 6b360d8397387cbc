package engine

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/stet-dev/stet/fsys"
)

// Keeping the bytes a replace or delete takes away, without a copy where
// the provider can (docs/design.md, "Keeping replaced bytes without a
// copy"): the file the swap displaces is renamed into the journal's object
// store as the blob of the version the session read. These are the pieces
// the commit sequence and intent recovery call.

// keepFor returns the fsys.Keep through which a replace or delete on p
// hands the file it displaces, holding old (of version ver, the bytes the
// change read), to the journal: adopted by rename where p is a Keeper on
// the state directory's filesystem, copied from old (journal.Put)
// otherwise. done releases it once the provider returned.
func (ws *Workspace) KeepFor(p fsys.Provider, ver fsys.Version, old []byte) (keep fsys.Keep, done func(), err error) {
	save := func() error {
		_, err := ws.Journal.Put(old)
		return err
	}
	if _, ok := p.(fsys.Keeper); !ok {
		return fsys.Keep{Save: save}, func() {}, nil
	}
	a, err := ws.Journal.Adopt(string(ver), int64(len(old)))
	if err != nil {
		return fsys.Keep{}, nil, err
	}
	adopt := a.Take
	if h := ws.Opts.Hooks.BeforeAdopt; h != nil {
		adopt = func(seen fs.FileInfo) error { h(string(ver)); return a.Take(seen) }
	}
	return fsys.Keep{Dir: a.Dir(), Name: a.Name(), Adopt: adopt, Save: save}, func() { a.Close() }, nil
}

// tempAdopter is a provider that can hand a temp file left by a crash to
// the journal (fsys/local on Unix).
type tempAdopter interface {
	AdoptTemp(name string, expect fsys.Expected, keep fsys.Keep) (fsys.Kept, error)
	RemoveTemp(name string) error
}

// adoptDisplaced settles, for intent recovery, the temp file temp (a
// root-relative path, as the intent recorded it) on p that a replace or
// delete stopped by a crash may have left holding the old bytes, version
// want, after its swap and before it handed them over:
//
//   - gone: nothing to do ("");
//   - holding want: it becomes the blob want, adopted by rename where p can
//     (AdoptTemp: it hashes the file once; over a blob already stored, the
//     same bytes), copied otherwise and removed;
//   - holding anything else (the swap never happened: the new bytes; or
//     another writer's): it is left where it is, for the caller's rules,
//     and the note says so.
//
// The note is for the intent's done record.
func (ws *Workspace) AdoptDisplaced(p fsys.Provider, temp, want string) (note string, err error) {
	info, err := p.Stat(temp)
	switch {
	case errors.Is(err, fsys.ErrNotFound):
		return "", nil
	case err != nil:
		return "", err
	}
	if ta, ok := p.(tempAdopter); ok {
		a, err := ws.Journal.Adopt(want, info.Size)
		if err != nil {
			return "", err
		}
		defer a.Close()
		save := func() error {
			b, err := fsys.ReadFileMax(p, temp, ws.Opts.MaxFileBytes)
			if err != nil {
				return err
			}
			if string(fsys.VersionOf(b)) != want {
				return fmt.Errorf("%s changed while it was copied", temp)
			}
			_, err = ws.Journal.Put(b)
			return err
		}
		kept, err := ta.AdoptTemp(temp, fsys.Expected{Version: fsys.Version(want)}, fsys.Keep{Dir: a.Dir(), Name: a.Name(), Adopt: a.Take, Save: save})
		switch {
		case errors.Is(err, fsys.ErrConflict):
			return fmt.Sprintf("%s does not hold the replaced bytes; left in place", temp), nil
		case err != nil:
			return "", err
		case kept.Adopted:
			return fmt.Sprintf("the replaced bytes were kept from %s", temp), nil
		}
		return fmt.Sprintf("the replaced bytes were copied from %s (%s)", temp, kept.Why), nil
	}
	b, err := fsys.ReadFileMax(p, temp, ws.Opts.MaxFileBytes)
	if err != nil {
		return "", err
	}
	if string(fsys.VersionOf(b)) != want {
		return fmt.Sprintf("%s does not hold the replaced bytes; left in place", temp), nil
	}
	if _, err := ws.Journal.Put(b); err != nil {
		return "", err
	}
	if rt, ok := p.(interface{ RemoveTemp(name string) error }); ok {
		rt.RemoveTemp(temp) // saved: a failure leaves a copy for the sweep
	}
	return fmt.Sprintf("the replaced bytes were copied from %s", temp), nil
}

// heldTemps returns the temp files (root index -> root-relative path) that
// intents not yet closed name, whether their process is alive or dead: the
// sweep keeps them (local.FS.SweepKeeping), since one may hold the old
// bytes of a replace or delete that stopped between its swap and the
// handover, until recovery settles it (adoptDisplaced). Only the intents
// past the recovery cursor are read: every one before it is closed.
func (ws *Workspace) HeldTemps() (map[int]map[string]bool, error) {
	open, _, err := ws.ReadIntents(ws.Journal.Cursor(intentCursor), false) // an intent that does not decode names no temp file
	if err != nil {
		return nil, err
	}
	held := map[int]map[string]bool{}
	for _, it := range open.Pending() {
		for _, f := range it.Data.Files {
			if f.Temp == "" {
				continue
			}
			t, err := ws.TargetOfKey(f.Key)
			if err != nil {
				continue
			}
			if held[t.Ri] == nil {
				held[t.Ri] = map[string]bool{}
			}
			held[t.Ri][f.Temp] = true
		}
	}
	return held, nil
}
