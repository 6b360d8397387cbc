package stet

import (
	"context"
	"fmt"
	"path"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/engine"
)

// Mkdir creates a directory and its missing parents inside the workspace.
// Each directory it creates counts as observed.
func (s *Session) Mkdir(ctx context.Context, a MkdirArgs) (*MkdirResult, error) {
	if err := s.e.CatchUp(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if ref := checkArgs("mkdir", a); ref != nil {
		return nil, ref
	}
	t, ref := s.e.Resolve("mkdir", a.Path)
	if ref != nil {
		return nil, ref
	}
	if ref := s.e.GateWrite("mkdir", t); ref != nil {
		return nil, ref
	}
	if info, err := t.Root.P.Stat(t.Rel); err == nil {
		if info.Type != fsys.TypeDir {
			return nil, engine.Refuse(KindExists, t.Spelled, "%s already exists and is a file; choose another name", t.Spelled)
		}
		// Not observed: the session neither created nor listed it (SPEC
		// section 1), and creating a file there still needs a list.
		return &MkdirResult{Message: fmt.Sprintf("%s already exists; nothing to do (list it to see what it holds)", t.Display()), Path: t.Display()}, nil
	}
	// Every directory this call creates counts as observed, the missing
	// parents too: the session created them.
	made := []engine.Target{t}
	for dir := path.Dir(t.Rel); dir != "." && dir != "/"; dir = path.Dir(dir) {
		if _, err := t.Root.P.Stat(dir); err == nil {
			break
		}
		u := t
		u.Rel = dir
		made = append(made, u)
	}
	if err := t.Root.P.MkdirAll(t.Rel); err != nil {
		return nil, s.e.WS.FileErr("mkdir", t, err)
	}
	if err := s.e.ObserveDirs(made...); err != nil {
		return nil, err
	}
	return &MkdirResult{Message: fmt.Sprintf("created directory %s", t.Display()), Path: t.Display(), Created: true}, nil
}

func mkdirText(r *MkdirResult) string { return r.Message }

func mkdirChanged(r *MkdirResult) bool { return r.Created }
