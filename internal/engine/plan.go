package engine

import (
	"errors"
	"fmt"
	"path"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/receipt"
)

// A plan says what each step of the commit sequence (sequence.go) does for
// one kind of change. The tools fill a change with what it must find and
// leave; its kind picks the plan, and what differs by kind the steps read
// from the plan's fields, so a new kind of change is one new plan. What is
// not a kind the steps still read from the change itself: a dry run stops
// before the write-ahead (DryRun), a change inside a sequence shares its
// intent (Intent), a move over a file saves and records that file (Over),
// an undo names the receipt it takes back (undoes), a create is recorded as
// created, and a directory carries no content to diff or verify (Dir).
type plan struct {
	kind string
	// before: the change starts from a file whose state the receipt
	// records (not a create; not a directory, moved by name only).
	before bool
	// take is what the change takes away whole, saved as a blob before
	// anything moves, and whether it saves it; nil: nothing.
	take func(c *Change) (b []byte, ok bool)
	// over: the blob is the file a move replaces, not the preimage.
	over bool
	// keep: on a provider that can (fsys.Keeper), the save is no copy
	// ahead of the swap: the file the swap displaces is handed to the
	// journal's object store by the provider, within step 5.
	keep bool
	// regions: a change that saves no blob keeps each match's old bytes
	// for undo (an edit).
	regions bool
	// temp: the change writes through a temp file named in its intent.
	temp bool
	// overlap: the temp file is written and fsynced while the save and the
	// intent become durable, and the provider waits for them before the
	// swap (fsys.Expected.Ready); otherwise they are waited for first.
	overlap bool
	// land is the provider's call that makes the change on disk.
	land func(s *Session, c *Change, exp fsys.Expected) (fsys.Commit, error)
	// check reads the result back and verifies the receipt (checkContent,
	// checkGone, checkMoved).
	check func(s *Session, c *Change, r *receipt.Receipt) (verr, err error)
	// diskMode: the after mode is what the disk gave a new file (a create
	// without an exact mode); otherwise the mode the file keeps.
	diskMode bool
	// names: the change makes a name in a directory (its directory is then
	// seen by the session).
	names bool
	// after: a file is there afterwards (the receipt's after state), whose
	// new bytes the session then sees.
	after bool
	// gone: the change removes the file from the session's view.
	gone bool
	// carriesFrom: the change frees the name it came from (a move).
	carriesFrom bool
}

// The plans, one per kind of change: tables, never written. A sequence of
// changes (an undo set, a multi-file patch) is commitSeq over these.
var (
	planCreate = plan{
		kind: "create", temp: true, overlap: true, land: landCreate, check: checkContent,
		diskMode: true, names: true, after: true,
	}
	planReplace = plan{
		kind: "replace", before: true, take: takePre, keep: true, regions: true, temp: true, overlap: true,
		land: landReplace, check: checkContent, after: true,
	}
	planDelete = plan{
		kind: "delete", before: true, take: takePre, keep: true, regions: true, temp: true, land: landDelete,
		check: checkGone, gone: true,
	}
	planMove = plan{
		kind: "move", before: true, take: takeOver, over: true, keep: true, land: landMove, check: checkMoved,
		names: true, after: true, carriesFrom: true,
	}
	planMoveDir = plan{
		kind: "move", land: landMove, check: checkMoved, names: true, carriesFrom: true,
	}
)

// plan is the plan of c's kind.
func (c *Change) plan() *plan {
	switch {
	case c.Src != nil && c.Dir:
		return &planMoveDir
	case c.Src != nil:
		return &planMove
	case c.Create:
		return &planCreate
	case c.Delete:
		return &planDelete
	}
	return &planReplace
}

// saves reports whether c keeps a blob of what it takes away.
func (pl *plan) saves(c *Change) bool {
	if pl.take == nil {
		return false
	}
	_, ok := pl.take(c)
	return ok
}

// takePre saves the preimage of a whole-file change (a write, a delete, a
// restore); an edit (save false) keeps only its regions.
func takePre(c *Change) ([]byte, bool) { return c.Pre, c.Save }

// takeOver saves the file a move replaces.
func takeOver(c *Change) ([]byte, bool) { return c.Over, c.Over != nil }

// taken is the version and the bytes of what c takes away whole and keeps:
// the file a move replaces, or the preimage.
func (c *Change) taken() (fsys.Version, []byte) {
	if c.Src != nil {
		return c.OverVer, c.Over
	}
	return c.PreVer, c.Pre
}

// keeper returns c's provider as an fsys.Keeper when take (c's plan's)
// saves bytes (the preimage, or the file a move replaces) and the provider
// can hand the displaced file over; only the plans that keep (plan.keep:
// replace, delete, a move over a file) ask.
func (c *Change) keeper(take func(*Change) ([]byte, bool)) (fsys.Keeper, bool) {
	if b, ok := take(c); !ok || b == nil {
		return nil, false
	}
	k, ok := c.T.Root.P.(fsys.Keeper)
	return k, ok
}

func landCreate(_ *Session, c *Change, exp fsys.Expected) (fsys.Commit, error) {
	// A held name's directory exists (it is held open); otherwise the
	// missing directories are made first.
	if dir := path.Dir(c.T.Rel); dir != "." && !c.T.held() {
		if err := c.T.Root.P.MkdirAll(dir); err != nil {
			return fsys.Commit{}, err
		}
	}
	return c.T.handle().Create(c.Post, c.mode, exp)
}

func landReplace(s *Session, c *Change, exp fsys.Expected) (fsys.Commit, error) {
	_, ok := c.keeper(takePre)
	if !ok {
		return c.T.handle().Replace(c.Post, exp)
	}
	if c.handover == nil { // started beside the intent (saveStep)
		c.handover = s.startHandover(c)
	}
	cm, _, err := c.T.handle().ReplaceKeep(c.Post, exp, c.handover.keep(s, c))
	return cm, err
}

func landDelete(s *Session, c *Change, exp fsys.Expected) (fsys.Commit, error) {
	_, ok := c.keeper(takePre)
	if !ok {
		return c.T.handle().Remove(exp)
	}
	if c.handover == nil { // started beside the intent (saveStep)
		c.handover = s.startHandover(c)
	}
	cm, _, err := c.T.handle().RemoveKeep(exp, c.handover.keep(s, c))
	return cm, err
}

func landMove(s *Session, c *Change, _ fsys.Expected) (fsys.Commit, error) {
	p := c.T.Root.P
	// A move into a directory that does not exist yet creates it, as a
	// create does; the plan proved every existing part is a directory.
	if dir := path.Dir(c.T.Rel); dir != "." && !c.T.held() {
		if _, err := p.Stat(dir); errors.Is(err, fsys.ErrNotFound) {
			if err := p.MkdirAll(dir); err != nil {
				return fsys.Commit{}, err
			}
		}
	}
	src := fsys.Expected{Version: c.PreVer, Bytes: c.Pre}
	if c.Dir {
		src = fsys.Expected{}
	}
	if c.Over == nil {
		return p.Rename(c.Src.Rel, c.T.Rel, src, nil)
	}
	dst := fsys.Expected{Version: c.OverVer, Bytes: c.Over}
	if _, ok := c.keeper(takeOver); !ok {
		return p.Rename(c.Src.Rel, c.T.Rel, src, &dst) // the replaced bytes were saved in step 4
	}
	// The file the move replaces is handed to the journal as the blob of
	// the version the session read (or copied there where it cannot be).
	if c.handover == nil { // started beside the intent (saveStep)
		c.handover = s.startHandover(c)
	}
	cm, _, err := fsys.RenameKeeping(p, c.Src.Rel, c.T.Rel, src, dst, c.handover.keep(s, c))
	return cm, err
}

// readErr is the error of a result that could not be read back at all.
func readErr(c *Change, err error) error {
	return fmt.Errorf("%s %s: reading back: %w", c.Tool, c.T.Spelled, err)
}

// checkGone verifies a delete: nothing is at the name.
func checkGone(_ *Session, c *Change, r *receipt.Receipt) (verr, err error) {
	if _, err := c.T.Stat(); err == nil {
		return receipt.Verify(c.Pre, []byte{}, *r), nil // something is there again
	} else if !errors.Is(err, fsys.ErrNotFound) {
		return nil, readErr(c, err)
	}
	return receipt.Verify(c.Pre, nil, *r), nil
}

// checkMoved verifies a move: the old name is free, and the new one holds
// the directory or the moved bytes.
func checkMoved(s *Session, c *Change, r *receipt.Receipt) (verr, err error) {
	// A symlink moves by name: its handle holds what it leads to, which
	// stays, so the name is looked up by its own walk.
	src := *c.Src
	if src.res != src.Rel {
		src.H = nil
	}
	if _, err := src.Stat(); err == nil {
		return fmt.Errorf("%s still exists after the move", c.Src.Spelled), nil
	} else if !errors.Is(err, fsys.ErrNotFound) {
		return nil, readErr(c, err)
	}
	if c.Dir {
		if info, err := c.T.Stat(); err != nil || info.Type != fsys.TypeDir {
			return fmt.Errorf("%s is not a directory after the move", c.T.Spelled), nil
		}
		return nil, nil
	}
	return checkContent(s, c, r)
}

// checkContent reads the result back and checks it against the receipt,
// independently of how it was computed.
//
// When the receipt carries every region's old and new bytes, the file is
// compared with the new bytes chunk by chunk (no buffer of its size), and
// receipt.VerifyShape proves, byte for byte, that they are the preimage with
// exactly the receipt's regions replaced: the readback is compared, not
// hashed again. Otherwise receipt.Verify checks both hashes.
func checkContent(_ *Session, c *Change, r *receipt.Receipt) (verr, err error) {
	pre := c.Pre
	if c.Create {
		pre = nil
	}
	if carriesBytes(c.Matches) {
		// The two halves of the proof are independent (the new bytes
		// against the disk, the receipt against the new bytes): on large
		// files they run side by side.
		shape := make(chan error, 1)
		verifyShape := func() { shape <- receipt.VerifyShape(pre, c.Post, *r) }
		if len(c.Post) >= 256<<10 {
			go verifyShape()
		} else {
			verifyShape()
		}
		same, err := c.T.handle().Check(fsys.Expected{Version: fsys.Version(r.After.Version), Bytes: c.Post})
		verr := <-shape
		if err != nil && !errors.Is(err, fsys.ErrNotFound) {
			return nil, readErr(c, err)
		}
		if same {
			return verr, nil
		}
	}
	readback, err := c.T.handle().ReadFile()
	if err != nil && !errors.Is(err, fsys.ErrNotFound) {
		return nil, readErr(c, err)
	}
	if readback == nil {
		return errors.New("the file is gone right after the swap"), nil
	}
	return receipt.Verify(pre, readback, *r), nil
}
