package stet

import (
	"context"
	"fmt"
	"path"

	"github.com/stet-dev/stet/fsys"
)

// Mkdir creates a directory and its missing parents inside the workspace.
// Each directory it creates counts as observed.
func (s *Session) Mkdir(ctx context.Context, a MkdirArgs) (*MkdirResult, error) {
	if err := s.catchUp(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if ref := checkArgs("mkdir", a); ref != nil {
		return nil, ref
	}
	t, ref := s.resolve("mkdir", a.Path)
	if ref != nil {
		return nil, ref
	}
	if ref := s.gateWrite("mkdir", t); ref != nil {
		return nil, ref
	}
	if info, err := t.root.p.Stat(t.rel); err == nil {
		if info.Type != fsys.TypeDir {
			return nil, refuse(KindExists, t.spelled, "%s already exists and is a file; choose another name", t.spelled)
		}
		// Not observed: the session neither created nor listed it (SPEC
		// section 1), and creating a file there still needs a list.
		return &MkdirResult{Message: fmt.Sprintf("%s already exists; nothing to do (list it to see what it holds)", t.display()), Path: t.display()}, nil
	}
	// Every directory this call creates counts as observed, the missing
	// parents too: the session created them.
	made := []target{t}
	for dir := path.Dir(t.rel); dir != "." && dir != "/"; dir = path.Dir(dir) {
		if _, err := t.root.p.Stat(dir); err == nil {
			break
		}
		u := t
		u.rel = dir
		made = append(made, u)
	}
	if err := t.root.p.MkdirAll(t.rel); err != nil {
		return nil, s.ws.fileErr("mkdir", t, err)
	}
	if err := s.observeDirs(made...); err != nil {
		return nil, err
	}
	return &MkdirResult{Message: fmt.Sprintf("created directory %s", t.display()), Path: t.display(), Created: true}, nil
}
