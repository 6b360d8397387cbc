package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// ownerName is the file in the state directory that names the workspace
// the journal belongs to.
const ownerName = "workspace.json"

// Owner is the workspace a state directory serves: an identity of its roots
// (Workspace) and the roots themselves, for messages.
type Owner struct {
	Workspace string   `json:"workspace"`
	Roots     []string `json:"roots"`
}

// OwnerError is returned by Claim when the state directory already belongs
// to another workspace. Nothing was read from or written to its journal on
// behalf of the new one.
type OwnerError struct {
	Dir        string
	Have, Want Owner
}

// Error names both workspaces and the one thing to do.
func (e *OwnerError) Error() string {
	return fmt.Sprintf("state directory %s belongs to the workspace with roots %s, not to this one (roots %s): its records and saved bytes are that workspace's; give this workspace a state directory of its own (--state DIR or STET_STATE), or open it with the roots that state directory belongs to, in that order",
		e.Dir, strings.Join(e.Have.Roots, ", "), strings.Join(e.Want.Roots, ", "))
}

// Claim binds the journal to the workspace o, or checks that it is bound
// to it already: a state directory serves one workspace only, so that an
// undo in one never restores a file of another. The first Claim of a state
// directory records o (atomically: a second process claiming at the same
// time sees one owner or the other, never a mix); a later Claim for
// another workspace fails with *OwnerError.
func (j *Journal) Claim(o Owner) error {
	if o.Workspace == "" {
		return errors.New("journal: claim: no workspace identity")
	}
	have, err := j.owner()
	if errors.Is(err, fs.ErrNotExist) {
		if err := j.writeOwner(o); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("journal: claim: %w", err)
		}
		have, err = j.owner()
	}
	if err != nil {
		return fmt.Errorf("journal: claim: %s: %w", ownerName, err)
	}
	if have.Workspace != o.Workspace {
		return &OwnerError{Dir: j.dir, Have: have, Want: o}
	}
	return nil
}

func (j *Journal) owner() (Owner, error) {
	f, err := j.root.Open(ownerName)
	if err != nil {
		return Owner{}, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return Owner{}, err
	}
	var o Owner
	if err := json.Unmarshal(b, &o); err != nil || o.Workspace == "" {
		return Owner{}, fmt.Errorf("not a workspace record (%d bytes); remove it only if this state directory is not shared", len(b))
	}
	return o, nil
}

// writeOwner puts o in place under its final name only once whole: written
// to a temp file, then linked (which fails if another process was first).
func (j *Journal) writeOwner(o Owner) error {
	o.Roots = slices.Clone(o.Roots)
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	tmp, err := j.writeTemp("owner", append(b, '\n'))
	if err != nil {
		return err
	}
	defer j.root.Remove(tmp)
	return j.root.Link(tmp, ownerName)
}

// writeTemp writes b to a new temp file of the state directory (named
// after what, with a random tail), fsynced, and returns its name; the
// caller links or renames it into place and removes the name.
func (j *Journal) writeTemp(what string, b []byte) (string, error) {
	var rnd [8]byte
	if _, err := io.ReadFull(j.rand, rnd[:]); err != nil {
		return "", err
	}
	tmp := fmt.Sprintf("%s%s-%x", tempPrefix, what, rnd)
	f, err := j.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	_, err = f.Write(b)
	if err == nil && !j.noSync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		j.root.Remove(tmp)
		return "", err
	}
	return tmp, nil
}
