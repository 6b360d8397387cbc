package stet

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/stet-dev/stet/internal/engine"
	"github.com/stet-dev/stet/policy"
)

// ReadFiles reads several files in one call (read with paths): each file
// is read as Read reads it (offset, limit and tail apply to each), with the
// byte budget shared between them, and is its own observation. A file
// refused (not found, binary, ...) comes back as its refusal in its place;
// the others are read all the same. Images and audio together may take up
// to the media limit; a media file past it is refused as too_large (read
// it alone).
func (s *Session) ReadFiles(ctx context.Context, a ReadArgs) (*ReadFilesResult, error) {
	if ref := checkArgs("read", a); ref != nil {
		return nil, ref
	}
	if err := s.e.CatchUp(); err != nil {
		return nil, err
	}
	paths := a.Paths
	if paths == nil {
		paths = []string{a.Path}
	}
	budget := max(s.e.WS.Opts.MaxReadBytes/len(paths), min(4<<10, s.e.WS.Opts.MaxReadBytes))
	media := int64(0)
	res := &ReadFilesResult{Files: make([]any, 0, len(paths))}
	for _, p := range paths {
		one := a
		one.Path, one.Paths = p, nil
		r, observe, err := s.prepareRead(ctx, one, budget)
		if err == nil && r.Data != nil {
			if media += int64(len(r.Data)); media > s.e.WS.Opts.MaxMediaBytes {
				err = engine.Refuse(KindTooLarge, p, "%s (%s, %s bytes) would take this read past the %s-byte limit for images and audio in one call; read it alone",
					p, r.MimeType, policy.Thousands(len(r.Data)), policy.Thousands(int(s.e.WS.Opts.MaxMediaBytes))).With("max_bytes", s.e.WS.Opts.MaxMediaBytes)
				r = nil
			}
		}
		if err == nil {
			err = observe()
		}
		if err != nil {
			ref, ok := AsRefusal(err)
			if !ok {
				return nil, err
			}
			if ref.Tool == "" {
				ref.Tool = "read"
			}
			res.Files = append(res.Files, ref)
			continue
		}
		res.Files = append(res.Files, r)
	}
	return res, nil
}

// readAny is read as Do runs it: one file, or several with paths.
func (s *Session) readAny(ctx context.Context, a ReadArgs) (any, error) {
	if a.Paths != nil {
		return s.ReadFiles(ctx, a)
	}
	return s.Read(ctx, a)
}

// readRender renders what read returns: one file, or several.
func readRender(res any) (string, bool) {
	switch r := res.(type) {
	case *ReadResult:
		return readText(r), true
	case *ReadFilesResult:
		return readFilesText(r), true
	}
	return "", false
}

func readFilesText(r *ReadFilesResult) string {
	parts := make([]string, len(r.Files))
	for i, f := range r.Files {
		var name, text string
		switch f := f.(type) {
		case *ReadResult:
			name, text = f.Path, readText(f)
		case *Refusal:
			name, text = f.Path, engine.RefusalText(f)
		default:
			b, _ := json.Marshal(f)
			text = string(b)
		}
		parts[i] = "==> " + engine.ShownName(name) + " <==\n" + text
	}
	return strings.Join(parts, "\n\n")
}

// readRow is read's row: one file or several (ReadArgs.Paths), so its
// results are of two types.
func readRow() tool {
	t := row0("read", (*Session).readAny)
	t.render = readRender
	return t
}
