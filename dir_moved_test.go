//go:build unix

package stet_test

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// TestChangeRefusedWhenItsDirectoryMovesOut: another process moves the
// directory of the file a call changes out of the workspace between the
// call's one resolution of the name and the swap. The call held that
// directory open, and an open directory follows its rename: the change must
// be refused, naming what happened, and nothing outside may change. Put
// back, the same change lands.
func TestChangeRefusedWhenItsDirectoryMovesOut(t *testing.T) {
	base := t.TempDir()
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "out")
	for _, d := range []string{filepath.Join(ws, "d"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{"a.txt": "one\ntwo\n", "b.txt": "bee\n", "c.txt": "sea\n"}
	for n, data := range files {
		if err := os.WriteFile(filepath.Join(ws, "d", n), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	armed := false
	moved := filepath.Join(out, "d")
	hooks := stet.Hooks{BeforeSwap: func(string) {
		if armed {
			armed = false
			if err := os.Rename(filepath.Join(ws, "d"), moved); err != nil {
				t.Error(err)
			}
		}
	}}
	w, err := stet.Open([]string{ws}, stet.Options{State: t.TempDir(), Hooks: hooks})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	s, _ := w.Session("moved")
	for n := range files {
		if _, err := s.Read(ctx, stet.ReadArgs{Path: "d/" + n}); err != nil {
			t.Fatal(err)
		}
	}
	calls := []struct {
		name string
		do   func() error
	}{
		{"edit", func() error {
			_, err := s.Edit(ctx, stet.EditArgs{Path: "d/a.txt", OldString: ptr("two"), NewString: ptr("2")})
			return err
		}},
		{"write (replace)", func() error {
			_, err := s.Write(ctx, stet.WriteArgs{Path: "d/b.txt", Content: "bee bee\n", Overwrite: true})
			return err
		}},
		{"write (create)", func() error {
			_, err := s.Write(ctx, stet.WriteArgs{Path: "d/new.txt", Content: "new\n"})
			return err
		}},
		{"delete", func() error {
			_, err := s.Delete(ctx, stet.DeleteArgs{Path: "d/c.txt"})
			return err
		}},
	}
	snapshot := func(dir string) map[string]string {
		m := map[string]string{}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			m[e.Name()] = string(data)
		}
		return m
	}
	for _, c := range calls {
		before := snapshot(filepath.Join(ws, "d"))
		armed = true
		err := c.do()
		var ref *stet.Refusal
		if !errors.As(err, &ref) || ref.Kind != stet.KindConflict || !strings.Contains(ref.Message, "was moved or replaced") {
			t.Errorf("%s with its directory moved out before the swap: %v, want a conflict refusal saying the directory moved", c.name, err)
		}
		if got := snapshot(moved); !maps.Equal(got, before) {
			t.Errorf("%s: the directory moved out holds %q, want what it held, %q", c.name, got, before)
		}
		if err := os.Rename(moved, filepath.Join(ws, "d")); err != nil {
			t.Fatal(err)
		}
		if err := c.do(); err != nil {
			t.Errorf("%s, its directory put back: %v", c.name, err)
		}
	}
}
