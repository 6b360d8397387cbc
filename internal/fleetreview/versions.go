package fleetreview

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/internal/fleetdb"
	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/textedit"
)

// group is the receipts of one file over a turn or a session: the change
// from the version before the first to the version after the last.
type group struct {
	path, from  string
	first, last *event
	ids         []string
}

// groups gathers events by file (a move joins its new name), in the order
// each file was first changed.
func groups(evs []*event) []*group {
	var out []*group
	by := map[string]*group{}
	for _, e := range evs {
		r := e.d.Receipt
		g := by[r.From]
		if r.From == "" || g == nil {
			g = by[r.Path]
		}
		if g == nil {
			g = &group{path: r.Path, from: r.From, first: e}
			out = append(out, g)
		}
		if r.From != "" {
			delete(by, r.From)
			g.path = r.Path
		}
		by[r.Path] = g
		g.last = e
		g.ids = append(g.ids, r.ID)
	}
	return out
}

// versions rebuilds file versions of one journal from the database: a
// blob of that version, or a later version taken back through a receipt.
type versions struct {
	db      *fleetdb.DB
	journal int64
	known   map[string][]byte
	tried   map[string]bool
	byPath  map[string][]history.Receipt // receipts of a path, loaded once
}

func newVersions(db *fleetdb.DB, j int64) *versions {
	return &versions{db: db, journal: j, known: map[string][]byte{}, tried: map[string]bool{}, byPath: map[string][]history.Receipt{}}
}

// sharing returns a versions of journal j that shares v's known bytes
// (versions are content-addressed: the same in every journal).
func (v *versions) sharing(j int64) *versions {
	return &versions{db: v.db, journal: j, known: v.known, tried: map[string]bool{}, byPath: map[string][]history.Receipt{}}
}

// load fetches the receipts of paths not loaded yet and the blobs they
// could need, in one query each.
func (v *versions) load(ctx context.Context, paths ...string) error {
	var want []string
	for _, p := range paths {
		if _, ok := v.byPath[p]; !ok {
			want = append(want, p)
			v.byPath[p] = nil
		}
	}
	if len(want) == 0 {
		return nil
	}
	lines, err := v.db.Receipts(ctx, v.journal, want)
	if err != nil {
		return err
	}
	names, err := v.add(lines)
	if err != nil {
		return err
	}
	return v.fetch(ctx, names)
}

// fetch adds the blobs of names the database holds to the known bytes.
func (v *versions) fetch(ctx context.Context, names []string) error {
	blobs, err := v.db.BlobsOf(ctx, names)
	if err != nil {
		return err
	}
	for k, b := range blobs {
		v.known[k] = b
	}
	return nil
}

// add takes receipt lines of the paths marked loaded, and returns the
// blobs they could need.
func (v *versions) add(lines []fleetdb.Stored) ([]string, error) {
	var names []string
	for _, st := range lines {
		if st.Line == nil {
			continue
		}
		var r journal.Record
		if err := json.Unmarshal(st.Line, &r); err != nil {
			return nil, err
		}
		d, err := history.Decode[history.Receipt](r)
		if err != nil {
			return nil, err
		}
		for _, p := range []string{d.Receipt.Path, d.Receipt.From} {
			if _, ok := v.byPath[p]; ok && p != "" {
				v.byPath[p] = append(v.byPath[p], d)
			}
		}
		for _, n := range []string{d.Pre, d.Over} {
			if n != "" {
				names = append(names, n)
			}
		}
		if d.Receipt.After != nil {
			names = append(names, d.Receipt.After.Version)
		}
		if d.Receipt.Before != nil {
			names = append(names, d.Receipt.Before.Version)
		}
	}
	return names, nil
}

// Get is a blob lookup for history.Preimage.
func (v *versions) Get(name string) ([]byte, error) {
	if b, ok := v.known[name]; ok {
		return b, nil
	}
	return nil, errors.New("not in the database")
}

// bytesOf returns the bytes of version ver of path when they can be
// rebuilt: a blob, or the version a later receipt left, taken back.
func (v *versions) bytesOf(ctx context.Context, path, ver string, depth int) ([]byte, bool) {
	if b, ok := v.known[ver]; ok {
		return b, true
	}
	if v.tried[ver] || depth > 1000 {
		return nil, false
	}
	v.tried[ver] = true
	if v.load(ctx, path) != nil {
		return nil, false
	}
	if b, ok := v.known[ver]; ok {
		return b, true
	}
	for _, d := range v.byPath[path] {
		r := d.Receipt
		if r.Before == nil || r.Before.Version != ver || r.After == nil {
			continue
		}
		after, ok := v.bytesOf(ctx, r.Path, r.After.Version, depth+1)
		if !ok {
			continue
		}
		if pre, err := history.Preimage(v, &d, after); err == nil {
			v.known[ver] = pre
			return pre, true
		}
	}
	return nil, false
}

// diff returns a group's combined change with its diff.
func (v *versions) diff(ctx context.Context, g *group) (stet.FileDiff, error) {
	first, last := g.first.d.Receipt, g.last.d.Receipt
	fc := stet.FileChange{Path: g.path, From: g.from, Receipts: g.ids, Created: first.Before == nil && g.from == "", Deleted: last.After == nil && last.From == ""}
	if first.Before == nil && last.After == nil && g.from != "" {
		fc.Dir = true
		return stet.FileDiff{FileChange: fc, Diff: ""}, nil
	}
	var before, after []byte
	okB, okA := true, true
	if first.Before != nil {
		before, okB = v.bytesOf(ctx, first.Path, first.Before.Version, 0)
		if !okB && first.From != "" {
			before, okB = v.bytesOf(ctx, first.From, first.Before.Version, 0)
		}
	}
	if last.After != nil {
		after, okA = v.bytesOf(ctx, last.Path, last.After.Version, 0)
	}
	if !okB || !okA {
		what := []string{}
		if !okB {
			what = append(what, "before "+first.Before.Version)
		}
		if !okA {
			what = append(what, "after "+last.After.Version)
		}
		return stet.FileDiff{FileChange: fc, Diff: "(a version is known by hash only: " + strings.Join(what, ", ") +
			"; the host shipped neither those bytes nor a later version they can be rebuilt from)\n"}, nil
	}
	d := textedit.Diff(g.path, before, after)
	fc.Exact = true
	fc.Added, fc.Removed = countDiff(d)
	return stet.FileDiff{FileChange: fc, Diff: d}, nil
}

// changes returns each group's change with its counts (no diff text).
func (v *versions) changes(ctx context.Context, gs []*group) ([]stet.FileChange, error) {
	var paths []string
	for _, g := range gs {
		paths = append(paths, g.path)
		if g.from != "" {
			paths = append(paths, g.from)
		}
	}
	if err := v.load(ctx, paths...); err != nil {
		return nil, err
	}
	out := []stet.FileChange{}
	for _, g := range gs {
		fd, err := v.diff(ctx, g)
		if err != nil {
			return nil, err
		}
		out = append(out, fd.FileChange)
	}
	return out, nil
}

// countDiff counts the added and removed lines of a unified diff.
func countDiff(d string) (added, removed int) {
	for _, l := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}
