package stet_test

import (
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/internal/fstree"
)

// undoCase is one mutation and the undos that must bring the tree back.
type undoCase struct {
	name  string
	fs    []string
	modes map[string]fs.FileMode // set before the session starts
	// change makes the mutation (after reading what it needs).
	change func(t *testing.T, s *stet.Session)
	undo   []string // paths to undo, in order; "p?": only if p is not back yet
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

var undoCases = []undoCase{
	{name: "edit", fs: []string{"a.txt=one\ntwo\n"}, modes: map[string]fs.FileMode{"a.txt": 0o600},
		change: func(t *testing.T, s *stet.Session) {
			readAll(t, s, "a.txt")
			must[*stet.MutationResult](t)(s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("two"), NewString: ptr("TWO")}))
		}, undo: []string{"a.txt"}},
	{name: "write create", fs: []string{"a.txt=one\n"},
		change: func(t *testing.T, s *stet.Session) {
			must[*stet.ListResult](t)(s.List(ctx, stet.ListArgs{Path: "."}))
			must[*stet.MutationResult](t)(s.Write(ctx, stet.WriteArgs{Path: "new.txt", Content: "fresh\n"}))
		}, undo: []string{"new.txt"}},
	{name: "write replace", fs: []string{"run.sh=#!/bin/sh\necho hi\n"}, modes: map[string]fs.FileMode{"run.sh": 0o755},
		change: func(t *testing.T, s *stet.Session) {
			readAll(t, s, "run.sh")
			must[*stet.MutationResult](t)(s.Write(ctx, stet.WriteArgs{Path: "run.sh", Content: "#!/bin/sh\necho bye\n", Overwrite: true}))
		}, undo: []string{"run.sh"}},
	{name: "patch", fs: []string{"a.txt=one\ntwo\n", "d.txt=doomed\n", "m.txt=mover\nline\n"},
		modes: map[string]fs.FileMode{"d.txt": 0o600},
		change: func(t *testing.T, s *stet.Session) {
			must[*stet.ListResult](t)(s.List(ctx, stet.ListArgs{Path: "."}))
			readAll(t, s, "a.txt", "d.txt", "m.txt")
			must[*stet.PatchResult](t)(s.Patch(ctx, stet.PatchArgs{Patch: "*** Begin Patch\n" +
				"*** Update File: a.txt\n@@\n-two\n+TWO\n" +
				"*** Add File: n.txt\n+added\n" +
				"*** Delete File: d.txt\n" +
				"*** Update File: m.txt\n*** Move to: m2.txt\n@@\n-line\n+LINE\n" +
				"*** End Patch\n"}))
		}, // The update of the moved file may be its own receipt at the old name.
		undo: []string{"a.txt", "n.txt", "d.txt", "m2.txt", "m.txt?"}},
	{name: "delete", fs: []string{"id_rsa=KEY\n"}, modes: map[string]fs.FileMode{"id_rsa": 0o600},
		change: func(t *testing.T, s *stet.Session) {
			readAll(t, s, "id_rsa")
			must[*stet.MutationResult](t)(s.Delete(ctx, stet.DeleteArgs{Path: "id_rsa"}))
		}, undo: []string{"id_rsa"}},
	{name: "move", fs: []string{"a.txt=alpha\n"}, modes: map[string]fs.FileMode{"a.txt": 0o640},
		change: func(t *testing.T, s *stet.Session) {
			must[*stet.ListResult](t)(s.List(ctx, stet.ListArgs{Path: "."}))
			readAll(t, s, "a.txt")
			must[*stet.MutationResult](t)(s.Move(ctx, stet.MoveArgs{From: "a.txt", To: "b.txt"}))
		}, undo: []string{"b.txt"}},
	{name: "move overwrite", fs: []string{"a.txt=alpha\n", "b.txt=bravo\nkept by the user\n"}, modes: map[string]fs.FileMode{"b.txt": 0o600},
		change: func(t *testing.T, s *stet.Session) {
			readAll(t, s, "a.txt", "b.txt")
			must[*stet.MutationResult](t)(s.Move(ctx, stet.MoveArgs{From: "a.txt", To: "b.txt", Overwrite: true}))
		}, undo: []string{"b.txt"}},
	{name: "directory move", fs: []string{"src/a.go=package a\n", "src/sub/b.go=package b\n"},
		change: func(t *testing.T, s *stet.Session) {
			must[*stet.ListResult](t)(s.List(ctx, stet.ListArgs{Path: "."}))
			must[*stet.ListResult](t)(s.List(ctx, stet.ListArgs{Path: "src"}))
			must[*stet.MutationResult](t)(s.Move(ctx, stet.MoveArgs{From: "src", To: "lib"}))
		}, undo: []string{"lib"}},
}

// TestUndoEveryTool: undo of every mutating tool restores the exact bytes
// and modes of every name it touched.
func TestUndoEveryTool(t *testing.T) {
	for _, c := range undoCases {
		t.Run(c.name, func(t *testing.T) {
			tr := fstree.Host(t)
			tr.Build(t, c.fs...)
			for name, m := range c.modes {
				if err := tr.Chmod(name, m); err != nil {
					t.Fatal(err)
				}
			}
			_, s := openTree(t, tr, stet.Options{})
			before := tr.Lines(t)
			outside := tr.OutsideDigest(t)
			c.change(t, s)
			if slices.Equal(tr.Lines(t), before) {
				t.Fatalf("the change changed nothing")
			}
			for _, p := range c.undo {
				if q, ok := strings.CutSuffix(p, "?"); ok {
					if p = q; slices.Equal(tr.Lines(t), before) {
						continue
					}
				}
				res, err := s.Undo(ctx, stet.UndoArgs{Path: p})
				if err != nil {
					t.Errorf("undo %s: %v", p, err)
					continue
				}
				if !res.Receipt.Verified {
					t.Errorf("undo %s: receipt not verified", p)
				}
			}
			if got := tr.Lines(t); !slices.Equal(got, before) {
				t.Errorf("tree after undo\n got  %q\n want %q", got, before)
			}
			if tr.OutsideDigest(t) != outside {
				t.Errorf("something outside the root changed")
			}
		})
	}
}

// TestUndoRefusedWhenChanged: when a name changed since the mutation,
// undo refuses (changed) and changes nothing, for every mutating tool.
func TestUndoRefusedWhenChanged(t *testing.T) {
	for _, c := range undoCases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "directory move" {
				t.Skip("a directory has no bytes to change")
			}
			tr := fstree.Host(t)
			tr.Build(t, c.fs...)
			_, s := openTree(t, tr, stet.Options{})
			c.change(t, s)
			// Another program changes (or recreates) every name the undo
			// would restore.
			for _, p := range c.undo {
				if strings.HasSuffix(p, "?") {
					continue
				}
				if err := tr.WriteFile(p, []byte("changed by the user\n")); err != nil {
					t.Fatal(err)
				}
			}
			before := tr.Lines(t)
			for _, p := range c.undo {
				if strings.HasSuffix(p, "?") {
					continue
				}
				_, err := s.Undo(ctx, stet.UndoArgs{Path: p})
				if got := kindOf(err); got != stet.KindChanged && got != stet.KindExists {
					t.Errorf("undo %s after an outside change: got %q, want %q", p, got, stet.KindChanged)
				}
			}
			if got := tr.Lines(t); !slices.Equal(got, before) {
				t.Errorf("tree after refused undo\n got  %q\n want %q", got, before)
			}
		})
	}
}
