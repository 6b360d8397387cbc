package stet

import (
	"context"

	"github.com/stet-dev/stet/tools"
)

// Open opens a workspace over roots (at least one directory). Paths given to
// tools are absolute inside any root, or relative: a relative path resolves
// in the one root where it exists (in several, it is refused as ambiguous,
// naming each); one that exists in no root (a new file) resolves in the
// first root.
func Open(roots []string, opts Options) (*Workspace, error) {
	return openWorkspace(roots, opts, face{listDir: listForRefusal})
}

// listForRefusal lists dir for a refusal that shows it, as the list tool
// with no arguments does, with the text a model reads of it.
func listForRefusal(ctx context.Context, s *Session, dir target) (*tools.ListResult, string, error) {
	res, err := s.listDir(ctx, dir, ListArgs{})
	if err != nil {
		return nil, "", err
	}
	return res, Text(res), nil
}
