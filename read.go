package stet

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/stet-dev/stet/frame"
	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/engine"
	"github.com/stet-dev/stet/policy"
)

// Read returns the numbered frame of a file, or a window of it, and records
// what was shown as seen by this session (SPEC section 3).
func (s *Session) Read(ctx context.Context, a ReadArgs) (*ReadResult, error) {
	return s.ReadWithin(ctx, a, s.e.WS.Opts.MaxReadBytes)
}

// ReadWithin is Read with a smaller byte bound for the window, for a surface
// whose responses must stay under a size (the MCP server retries a read whose
// response would be too large with a smaller bound). A bound of 0 or above
// the workspace's --max-read-bytes means the workspace's.
func (s *Session) ReadWithin(ctx context.Context, a ReadArgs, maxBytes int) (*ReadResult, error) {
	if err := s.e.CatchUp(); err != nil {
		return nil, err
	}
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
	if maxBytes <= 0 || maxBytes > s.e.WS.Opts.MaxReadBytes {
		maxBytes = s.e.WS.Opts.MaxReadBytes
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if ref := checkArgs("read", a); ref != nil {
		return nil, nil, ref
	}
	if a.Paths != nil {
		return nil, nil, engine.Refuse(KindInvalid, "", "Read takes one path; use ReadFiles for paths")
	}
	t, ref := s.e.Resolve("read", a.Path)
	if ref != nil {
		return nil, nil, ref
	}
	if ref := s.e.WS.Denied(t); ref != nil {
		return nil, nil, ref
	}
	f, info, err := t.OpenRead()
	if err != nil {
		return nil, nil, s.e.WS.FileErr("read", t, err)
	}
	defer f.Close()
	data, whole, err := readHead(f, info.Size, wholeReadBytes)
	if err != nil {
		return nil, nil, s.e.WS.FileErr("read", t, err)
	}
	if mime := mediaType(data); mime != "" {
		return s.readMedia(t, f, data, whole, mime)
	}
	// Nothing of a text read keeps data past this call (the frame, the
	// version and the refusals are copies): its buffer goes back.
	defer func() { putHead(data) }()
	opts := frame.Options{Offset: a.Offset, Limit: a.Limit, MaxBytes: maxBytes}
	if a.Tail > 0 {
		lines, lastNL := engine.FrameLines(data), len(data) > 0 && data[len(data)-1] == '\n'
		if !whole {
			// Count the rest, then start over for the window: a streamed
			// read keeps only its window, so the last lines are found by
			// number.
			var err error
			if lines, lastNL, err = countRest(ctx, f, data); err != nil {
				return nil, nil, fmt.Errorf("read %s: %w", t.Spelled, err)
			}
			f.Close()
			if f, _, err = t.OpenRead(); err != nil {
				return nil, nil, s.e.WS.FileErr("read", t, err)
			}
			defer f.Close()
			putHead(data)
			if data, whole, err = readHead(f, info.Size, wholeReadBytes); err != nil {
				return nil, nil, s.e.WS.FileErr("read", t, err)
			}
		}
		opts.Offset, opts.Limit = tailWindow(lines, lastNL, a.Tail)
	}
	var sc scanned
	if whole {
		if ref := engine.CheckText(t, data); ref != nil {
			return nil, nil, ref
		}
		sc.w, err = frame.EncodeWindow(data, opts)
		sc.size, sc.version = len(data), string(fsys.VersionOf(data))
	} else {
		sc, err = scanWindow(ctx, t, f, data, opts)
		var ref *Refusal
		if errors.As(err, &ref) {
			return nil, nil, ref
		}
	}
	w := sc.w
	if err != nil {
		var long *frame.LineTooLongError
		var off *frame.OffsetError
		switch {
		case errors.As(err, &long):
			return nil, nil, engine.Refuse(KindTooLarge, t.Spelled, "%s line %d is %s bytes, over the %s-byte read limit; no frame can show it whole; use grep to see the parts you need",
				t.Spelled, long.Line, policy.Thousands(long.Bytes), policy.Thousands(long.Max)).With("line", long.Line, "bytes", long.Bytes)
		case errors.As(err, &off):
			return nil, nil, engine.Refuse(KindInvalid, t.Spelled, "%s has %s lines; offset %d is past the end; read from offset 1", t.Spelled, policy.Thousands(off.Lines), off.Offset).With("lines", off.Lines)
		}
		return nil, nil, fmt.Errorf("read %s: %w", t.Spelled, err)
	}
	version := sc.version
	res = &ReadResult{Path: t.Display(), Version: version, Lines: w.Lines, From: w.From, To: w.To, Frame: w.Frame}
	if int64(sc.size) > s.e.WS.Opts.MaxFileBytes {
		res.Notes = append(res.Notes, fmt.Sprintf("%s is %s bytes, over the %s-byte edit limit: it can be read in windows but not edited",
			t.Spelled, policy.Thousands(sc.size), policy.Thousands(int(s.e.WS.Opts.MaxFileBytes))))
	}
	observe = func() error {
		return s.e.ObserveFile(t, version, sc.size, w.Lines, policy.Range{Start: w.Start, End: w.End}, w.Whole)
	}
	return res, observe, nil
}

// wholeReadBytes is the size up to which read holds a file whole: one
// buffer and one pass each for the checks, the hash and the frame, the
// fastest way for the files people edit. A larger file streams through
// scanWindow, which keeps only the window.
const wholeReadBytes = 4 << 20

// scanChunk is the size of the pieces a streamed read takes; cancellation
// is checked between them.
const scanChunk = 256 << 10

// readHead reads r, a file of about size bytes, up to max bytes. whole
// reports that it reached the end: head is then the whole file.
func readHead(r io.Reader, size int64, max int) (head []byte, whole bool, err error) {
	n := max
	if size >= 0 && size < int64(max) {
		n = int(size)
	}
	// One spare byte: a file that did not grow ends with a zero-length read.
	head = getHead(n + 1)
	for len(head) <= max {
		if len(head) == cap(head) {
			head = append(head, 0)[:len(head)]
		}
		room := head[len(head):cap(head)]
		if len(room) > max+1-len(head) {
			room = room[:max+1-len(head)]
		}
		k, err := r.Read(room)
		head = head[:len(head)+k]
		if errors.Is(err, io.EOF) {
			return head, true, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
	return head, false, nil
}

// headBufs keeps the buffers of whole reads between calls: a server that
// answers reads of large files one after another would otherwise allocate
// each file's size again per call (and zero it), and start a collection
// cycle about every call. Buffers under minPooledHead cost less than the
// pool's bookkeeping.
var headBufs sync.Pool

const minPooledHead = 64 << 10

// getHead returns an empty buffer of capacity at least n.
func getHead(n int) []byte {
	if n >= minPooledHead {
		if b, ok := headBufs.Get().(*[]byte); ok {
			if cap(*b) >= n {
				return (*b)[:0]
			}
			headBufs.Put(b)
		}
	}
	return make([]byte, 0, n)
}

// putHead gives back a buffer readHead returned. Nothing may use b after.
func putHead(b []byte) {
	if cap(b) < minPooledHead || cap(b) > wholeReadBytes+1 {
		return
	}
	b = b[:0]
	headBufs.Put(&b)
}

// scanned is what a read learned of a file: its window, size and version.
type scanned struct {
	w       frame.Window
	size    int
	version string
}

// scanWindow reads the rest of a file whose first bytes are head, keeping
// only the window o selects: it hashes every byte for the version, counts
// the lines, and checks the text (a NUL in the first 8 KiB, invalid UTF-8
// anywhere) as it goes. A text refusal comes back as a *Refusal error.
func scanWindow(ctx context.Context, t engine.Target, r io.Reader, head []byte, o frame.Options) (scanned, error) {
	head8 := head
	if len(head8) > 8<<10 {
		head8 = head8[:8<<10]
	}
	if i := bytes.IndexByte(head8, 0); i >= 0 {
		return scanned{}, engine.BinaryRefusal(t, i)
	}
	h := sha256.New()
	ww := frame.NewWindowWriter(o)
	var u engine.Utf8Stream
	size := 0
	feed := func(p []byte) error {
		h.Write(p)
		ww.Write(p)
		if !u.Write(p) {
			return engine.NotUTF8Refusal(t, u.Bad)
		}
		size += len(p)
		return nil
	}
	if err := feed(head); err != nil {
		return scanned{}, err
	}
	buf := make([]byte, scanChunk)
	for {
		if err := ctx.Err(); err != nil {
			return scanned{}, err
		}
		n, err := r.Read(buf)
		if ferr := feed(buf[:n]); ferr != nil {
			return scanned{}, ferr
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return scanned{}, fmt.Errorf("read %s: %w", t.Spelled, err)
		}
	}
	if !u.End() {
		return scanned{}, engine.NotUTF8Refusal(t, u.Bad)
	}
	w, err := ww.Window()
	return scanned{w: w, size: size, version: fsys.VersionPrefix + hex.EncodeToString(h.Sum(nil))}, err
}

// countRest counts the numbered lines of a file whose first bytes are head
// and whose rest r holds, and reports whether it ends with a newline.
func countRest(ctx context.Context, r io.Reader, head []byte) (lines int, lastNL bool, err error) {
	lines = engine.FrameLines(head)
	lastNL = len(head) > 0 && head[len(head)-1] == '\n'
	buf := make([]byte, scanChunk)
	for {
		if err := ctx.Err(); err != nil {
			return 0, false, err
		}
		n, err := r.Read(buf)
		if n > 0 {
			lines += bytes.Count(buf[:n], []byte{'\n'})
			lastNL = buf[n-1] == '\n'
		}
		if errors.Is(err, io.EOF) {
			return lines, lastNL, nil
		}
		if err != nil {
			return 0, false, err
		}
	}
}

// tailWindow is the window of the last n lines of a text of lines numbered
// lines. The empty numbered line after a final newline is not a line of
// text: it is shown but not counted, so tail 1 of "a\nb\n" shows b.
func tailWindow(lines int, lastNL bool, n int) (offset, limit int) {
	text := lines
	if lastNL && lines > 1 {
		text--
	}
	offset = max(1, text-n+1)
	return offset, lines - offset + 1
}

func readText(r *ReadResult) string {
	if r.MimeType != "" {
		return mediaText(r)
	}
	if len(r.Notes) == 0 {
		return r.Frame
	}
	return r.Frame + "\nnote: " + strings.Join(r.Notes, "\nnote: ")
}
