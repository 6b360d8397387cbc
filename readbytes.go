package stet

import (
	"context"

	"github.com/stet-dev/stet/internal/engine"
)

// ReadBytes returns a file's bytes whole, whatever they hold, for a surface
// that sends a file as it is (the reference profile's read_media_file
// sends a file that is neither image nor audio as an embedded resource).
// The path passes read's rules (confinement, the client's roots, deny-read);
// the bytes are bounded as media are (Options.MaxMediaBytes: a larger file
// is refused as too_large). The result has Data and the MIME type of an
// image or audio file, or "application/octet-stream" for any other; it
// counts as an observation of the whole file at its version.
func (s *Session) ReadBytes(ctx context.Context, path string) (*ReadResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.e.CatchUp(); err != nil {
		return nil, err
	}
	if path == "" {
		return nil, engine.Refuse(KindInvalid, "", "read needs a path")
	}
	t, ref := s.e.Resolve("read", path)
	if ref != nil {
		return nil, ref
	}
	if ref := s.e.WS.Denied(t); ref != nil {
		return nil, ref
	}
	f, info, err := t.OpenRead()
	if err != nil {
		return nil, s.e.WS.FileErr("read", t, err)
	}
	defer f.Close()
	head, whole, err := readHead(f, info.Size, wholeReadBytes)
	if err != nil {
		return nil, s.e.WS.FileErr("read", t, err)
	}
	mime := mediaType(head)
	if mime == "" {
		mime = "application/octet-stream"
	}
	res, observe, err := s.readMedia(t, f, head, whole, mime)
	if err != nil {
		return nil, err
	}
	if err := observe(); err != nil {
		return nil, err
	}
	return res, nil
}
