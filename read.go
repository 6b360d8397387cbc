package stet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/stet-dev/stet/frame"
	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/policy"
)

// Read returns the numbered frame of a file, or a window of it, and records
// what was shown as seen by this session (SPEC section 3).
func (s *Session) Read(ctx context.Context, a ReadArgs) (*ReadResult, error) {
	return s.ReadWithin(ctx, a, s.ws.opts.MaxReadBytes)
}

// ReadWithin is Read with a smaller byte bound for the window, for a surface
// whose responses must stay under a size (the MCP server retries a read whose
// response would be too large with a smaller bound). A bound of 0 or above
// the workspace's --max-read-bytes means the workspace's.
func (s *Session) ReadWithin(ctx context.Context, a ReadArgs, maxBytes int) (*ReadResult, error) {
	res, observe, err := s.prepareRead(ctx, a, maxBytes)
	if err != nil {
		return nil, err
	}
	if err := observe(); err != nil {
		return nil, err
	}
	return res, nil
}

// prepareRead makes a read's result without recording it: observe records
// what the result shows as seen. A surface that may drop the result (too
// large to send) calls observe only for the result it sends, so the session
// never counts as seen what the model was not shown.
func (s *Session) prepareRead(ctx context.Context, a ReadArgs, maxBytes int) (res *ReadResult, observe func() error, err error) {
	if maxBytes <= 0 || maxBytes > s.ws.opts.MaxReadBytes {
		maxBytes = s.ws.opts.MaxReadBytes
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if ref := checkArgs("read", a); ref != nil {
		return nil, nil, ref
	}
	t, ref := s.resolve("read", a.Path)
	if ref != nil {
		return nil, nil, ref
	}
	if ref := s.ws.denied(t); ref != nil {
		return nil, nil, ref
	}
	data, err := t.root.p.ReadFile(t.rel)
	if err != nil {
		return nil, nil, s.ws.fileErr("read", t, err)
	}
	if ref := checkText(t, data); ref != nil {
		return nil, nil, ref
	}
	w, err := frame.EncodeWindow(data, frame.Options{Offset: a.Offset, Limit: a.Limit, MaxBytes: maxBytes})
	if err != nil {
		var long *frame.LineTooLongError
		var off *frame.OffsetError
		switch {
		case errors.As(err, &long):
			return nil, nil, refuse(KindTooLarge, t.spelled, "%s line %d is %s bytes, over the %s-byte read limit; no frame can show it whole; use grep to see the parts you need",
				t.spelled, long.Line, policy.Thousands(long.Bytes), policy.Thousands(long.Max)).with("line", long.Line, "bytes", long.Bytes)
		case errors.As(err, &off):
			return nil, nil, refuse(KindInvalid, t.spelled, "%s has %s lines; offset %d is past the end; read from offset 1", t.spelled, policy.Thousands(off.Lines), off.Offset).with("lines", off.Lines)
		}
		return nil, nil, fmt.Errorf("read %s: %w", t.spelled, err)
	}
	version := string(fsys.VersionOf(data))
	res = &ReadResult{Path: t.display(), Version: version, Lines: w.Lines, From: w.From, To: w.To, Frame: w.Frame}
	if int64(len(data)) > s.ws.opts.MaxFileBytes {
		res.Notes = append(res.Notes, fmt.Sprintf("%s is %s bytes, over the %s-byte edit limit: it can be read in windows but not edited",
			t.spelled, policy.Thousands(len(data)), policy.Thousands(int(s.ws.opts.MaxFileBytes))))
	}
	observe = func() error {
		return s.observeFile(t, version, len(data), w.Lines, policy.Range{Start: w.Start, End: w.End}, w.Whole)
	}
	return res, observe, nil
}

// checkText refuses bytes that are not text: a NUL in the first 8 KiB
// (binary) or invalid UTF-8 (not_utf8, with the byte offset).
func checkText(t target, data []byte) *Refusal {
	head := data
	if len(head) > 8<<10 {
		head = head[:8<<10]
	}
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return refuse(KindBinary, t.spelled, "%s is binary (a NUL byte at offset %d); stet reads and edits text only; leave it alone or replace it with a tool made for that format", t.spelled, i).with("offset", i)
	}
	if !utf8.Valid(data) {
		off := invalidUTF8(data)
		return refuse(KindNotUTF8, t.spelled, "%s is not valid UTF-8 (first bad byte at offset %d); stet edits UTF-8 text only; convert it first if it is text in another encoding", t.spelled, off).with("offset", off)
	}
	return nil
}

func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// fileErr turns a backend error into a refusal where it has a kind, and
// wraps it otherwise. Raw OS error text never reaches the message.
func (ws *Workspace) fileErr(tool string, t target, err error) error {
	p := t.spelled
	switch {
	case errors.Is(err, fsys.ErrOutside):
		return &Refusal{Kind: KindOutside, Tool: tool, Path: p, Err: err,
			Message: fmt.Sprintf("refused: %s leads outside the workspace (a symlink or path that leaves it); use a path inside the workspace", p)}
	case errors.Is(err, fsys.ErrInvalid):
		return &Refusal{Kind: KindOutside, Tool: tool, Path: p, Err: err,
			Message: fmt.Sprintf("refused: %q is not a valid workspace path; give a plain relative path", p)}
	case errors.Is(err, fsys.ErrNotFound):
		return &Refusal{Kind: KindNotFound, Tool: tool, Path: p, Err: err,
			Message: fmt.Sprintf("refused: %s does not exist; use list or find to see what does", p)}
	case errors.Is(err, fsys.ErrNotDir):
		return &Refusal{Kind: KindNotFound, Tool: tool, Path: p, Err: err,
			Message: fmt.Sprintf("refused: %s does not exist (a part of the path is a file, not a directory); use list to see what does", p)}
	case errors.Is(err, fsys.ErrIsDir):
		return &Refusal{Kind: KindNotRegular, Tool: tool, Path: p, Err: err,
			Message: fmt.Sprintf("refused: %s is a directory; use list to see its entries", p)}
	case errors.Is(err, fsys.ErrNotRegular):
		return &Refusal{Kind: KindNotRegular, Tool: tool, Path: p, Err: err,
			Message: fmt.Sprintf("refused: %s is not a regular file (a FIFO, device or socket); stet reads and writes regular files only; leave it alone", p)}
	case errors.Is(err, fsys.ErrExists):
		return &Refusal{Kind: KindExists, Tool: tool, Path: p, Err: err,
			Message: fmt.Sprintf("refused: %s already exists; read it and edit it in place, or choose another name", p)}
	case errors.Is(err, fsys.ErrConflict):
		return &Refusal{Kind: KindConflict, Tool: tool, Path: p, Err: err,
			Message: fmt.Sprintf("refused: %s was changed by another writer while this call was writing it; nothing of this call was written and the other writer's bytes stand; read it again, then retry", p)}
	}
	return fmt.Errorf("%s %s: %w", tool, p, err)
}
