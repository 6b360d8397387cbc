package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
)

// denyReadName holds every deny-read glob a process opened this state
// directory with (RecordDenyRead).
const denyReadName = "deny-read.json"

// RecordDenyRead adds patterns to the state directory's record of the
// deny-read globs its workspaces were opened with. The record only grows:
// what shipping the journal elsewhere (stet sync) keeps back is every file
// any process of this state directory hid, whatever flags the shipper is
// given. A call whose patterns are all recorded already writes nothing.
func (j *Journal) RecordDenyRead(patterns []string) error {
	if len(patterns) == 0 {
		return nil
	}
	have, err := j.DenyRead()
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(patterns, func(p string) bool { return !slices.Contains(have, p) }) {
		return nil
	}
	return j.Exclusive(denyReadName, func() error {
		have, err := j.DenyRead() // again, under the lock
		if err != nil {
			return err
		}
		all := slices.Clone(have)
		for _, p := range patterns {
			if !slices.Contains(all, p) {
				all = append(all, p)
			}
		}
		if len(all) == len(have) {
			return nil
		}
		b, err := json.Marshal(all)
		if err != nil {
			return err
		}
		tmp, err := j.writeTemp(denyReadName, append(b, '\n'))
		if err != nil {
			return fmt.Errorf("journal: recording the deny-read rules: %w", err)
		}
		defer j.root.Remove(tmp)
		err = j.root.Rename(tmp, denyReadName)
		if err == nil {
			err = j.syncDir(".")
		}
		if err != nil {
			return fmt.Errorf("journal: recording the deny-read rules: %w", err)
		}
		return nil
	})
}

// DenyRead returns every deny-read glob recorded by RecordDenyRead, in the
// order first recorded; none when nothing was.
func (j *Journal) DenyRead() ([]string, error) {
	f, err := j.root.Open(denyReadName)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journal: %s: %w", denyReadName, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("journal: %s: %w", denyReadName, err)
	}
	var out []string
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("journal: %s is not a list of globs (%d bytes): %w; remove it only after giving every command of this state directory its --deny-read", denyReadName, len(b), err)
	}
	return out, nil
}
