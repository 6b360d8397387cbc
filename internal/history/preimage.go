package history

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/stet-dev/stet/receipt"
	"github.com/stet-dev/stet/textedit"
)

// Blobs is where saved contents are read from: the journal's blob store
// (journal.Journal satisfies it).
type Blobs interface {
	// Get returns the bytes of a blob by its version ("sha256:<hex>").
	Get(version string) ([]byte, error)
}

// version is the content version of b, as fsys.VersionOf makes it.
func version(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Preimage returns the bytes the file of receipt d held before the
// change: the saved blob d.Pre from blobs, or, when only the replaced
// regions were kept, rebuilt from cur (the file's bytes after the change)
// and each match's old bytes. Either way the result must hash to the
// receipt's before version. d must have a before state (not a create).
func Preimage(blobs Blobs, d *Receipt, cur []byte) ([]byte, error) {
	r := d.Receipt
	if r.Before == nil {
		return nil, fmt.Errorf("undo %s: receipt %s created the file; it has no previous bytes", r.Path, r.ID)
	}
	var pre []byte
	if d.Pre != "" {
		b, err := blobs.Get(d.Pre)
		if err != nil {
			return nil, fmt.Errorf("undo %s: the saved content of %s is unreadable: %w", r.Path, r.ID, err)
		}
		pre = b
	} else {
		if len(d.Old) != len(r.Matches) {
			return nil, fmt.Errorf("undo %s: receipt %s does not record what it replaced", r.Path, r.ID)
		}
		out := make([]byte, 0, r.Before.Bytes)
		delta, last := 0, 0
		for i, m := range r.Matches {
			at := m.Offset + delta
			if at < last || at+m.NewBytes > len(cur) {
				return nil, fmt.Errorf("undo %s: receipt %s does not fit the file", r.Path, r.ID)
			}
			out = append(out, cur[last:at]...)
			out = append(out, d.Old[i]...)
			last = at + m.NewBytes
			delta += m.NewBytes - m.OldBytes
		}
		pre = append(out, cur[last:]...)
	}
	if version(pre) != r.Before.Version {
		return nil, fmt.Errorf("undo %s: the rebuilt content of %s does not match its before version; the journal may be damaged (stet verify --all)", r.Path, r.ID)
	}
	return pre, nil
}

// Invert builds the splice that turns cur (a receipt's after bytes) back
// into pre (its before bytes), region by region of the receipt's matches
// ms, and checks that it rebuilds pre exactly.
func Invert(cur, pre []byte, ms []receipt.Match) (textedit.Result, error) {
	regions := make([]receipt.Match, 0, len(ms))
	delta := 0
	for _, m := range ms {
		if m.Offset < 0 || m.Offset+m.OldBytes > len(pre) {
			return textedit.Result{}, fmt.Errorf("a match at offset %d (%d bytes) lies outside the previous %d bytes", m.Offset, m.OldBytes, len(pre))
		}
		at := m.Offset + delta
		regions = append(regions, receipt.Match{Offset: at, OldBytes: m.NewBytes, New: pre[m.Offset : m.Offset+m.OldBytes]})
		delta += m.NewBytes - m.OldBytes
	}
	res, err := textedit.Splice(cur, regions)
	if err != nil {
		return res, err
	}
	if string(res.Text) != string(pre) {
		return res, errors.New("inverse splice does not rebuild the previous bytes")
	}
	return res, nil
}
