package stet

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
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
	if err := s.catchUp(); err != nil {
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
	if maxBytes <= 0 || maxBytes > s.ws.opts.MaxReadBytes {
		maxBytes = s.ws.opts.MaxReadBytes
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if ref := checkArgs("read", a); ref != nil {
		return nil, nil, ref
	}
	if a.Paths != nil {
		return nil, nil, refuse(KindInvalid, "", "Read takes one path; use ReadFiles for paths")
	}
	t, ref := s.resolve("read", a.Path)
	if ref != nil {
		return nil, nil, ref
	}
	if ref := s.ws.denied(t); ref != nil {
		return nil, nil, ref
	}
	f, info, err := fsys.Open(t.root.p, t.rel)
	if err != nil {
		return nil, nil, s.ws.fileErr("read", t, err)
	}
	defer f.Close()
	data, whole, err := readHead(f, info.Size, wholeReadBytes)
	if err != nil {
		return nil, nil, s.ws.fileErr("read", t, err)
	}
	if mime := mediaType(data); mime != "" {
		return s.readMedia(t, f, data, whole, mime)
	}
	opts := frame.Options{Offset: a.Offset, Limit: a.Limit, MaxBytes: maxBytes}
	if a.Tail > 0 {
		lines, lastNL := frameLines(data), len(data) > 0 && data[len(data)-1] == '\n'
		if !whole {
			// Count the rest, then start over for the window: a streamed
			// read keeps only its window, so the last lines are found by
			// number.
			var err error
			if lines, lastNL, err = countRest(ctx, f, data); err != nil {
				return nil, nil, fmt.Errorf("read %s: %w", t.spelled, err)
			}
			f.Close()
			if f, _, err = fsys.Open(t.root.p, t.rel); err != nil {
				return nil, nil, s.ws.fileErr("read", t, err)
			}
			defer f.Close()
			if data, whole, err = readHead(f, info.Size, wholeReadBytes); err != nil {
				return nil, nil, s.ws.fileErr("read", t, err)
			}
		}
		opts.Offset, opts.Limit = tailWindow(lines, lastNL, a.Tail)
	}
	var sc scanned
	if whole {
		if ref := checkText(t, data); ref != nil {
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
			return nil, nil, refuse(KindTooLarge, t.spelled, "%s line %d is %s bytes, over the %s-byte read limit; no frame can show it whole; use grep to see the parts you need",
				t.spelled, long.Line, policy.Thousands(long.Bytes), policy.Thousands(long.Max)).with("line", long.Line, "bytes", long.Bytes)
		case errors.As(err, &off):
			return nil, nil, refuse(KindInvalid, t.spelled, "%s has %s lines; offset %d is past the end; read from offset 1", t.spelled, policy.Thousands(off.Lines), off.Offset).with("lines", off.Lines)
		}
		return nil, nil, fmt.Errorf("read %s: %w", t.spelled, err)
	}
	version := sc.version
	res = &ReadResult{Path: t.display(), Version: version, Lines: w.Lines, From: w.From, To: w.To, Frame: w.Frame}
	if int64(sc.size) > s.ws.opts.MaxFileBytes {
		res.Notes = append(res.Notes, fmt.Sprintf("%s is %s bytes, over the %s-byte edit limit: it can be read in windows but not edited",
			t.spelled, policy.Thousands(sc.size), policy.Thousands(int(s.ws.opts.MaxFileBytes))))
	}
	observe = func() error {
		return s.observeFile(t, version, sc.size, w.Lines, policy.Range{Start: w.Start, End: w.End}, w.Whole)
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
	head = make([]byte, 0, n+1)
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
func scanWindow(ctx context.Context, t target, r io.Reader, head []byte, o frame.Options) (scanned, error) {
	head8 := head
	if len(head8) > 8<<10 {
		head8 = head8[:8<<10]
	}
	if i := bytes.IndexByte(head8, 0); i >= 0 {
		return scanned{}, binaryRefusal(t, i)
	}
	h := sha256.New()
	ww := frame.NewWindowWriter(o)
	var u utf8Stream
	size := 0
	feed := func(p []byte) error {
		h.Write(p)
		ww.Write(p)
		if !u.write(p) {
			return notUTF8Refusal(t, u.bad)
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
			return scanned{}, fmt.Errorf("read %s: %w", t.spelled, err)
		}
	}
	if !u.end() {
		return scanned{}, notUTF8Refusal(t, u.bad)
	}
	w, err := ww.Window()
	return scanned{w: w, size: size, version: fsys.VersionPrefix + hex.EncodeToString(h.Sum(nil))}, err
}

// utf8Stream checks UTF-8 text written to it in pieces; a rune may be split
// between pieces. bad is the offset of the first invalid byte once found.
type utf8Stream struct {
	off     int // bytes checked and found valid
	pending []byte
	bad     int
	failed  bool
}

// write checks p and reports whether the text is still valid.
func (u *utf8Stream) write(p []byte) bool {
	if u.failed {
		return false
	}
	if len(u.pending) > 0 {
		k := min(utf8.UTFMax-len(u.pending), len(p))
		tmp := append(u.pending[:len(u.pending):len(u.pending)], p[:k]...)
		if !utf8.FullRune(tmp) {
			u.pending = tmp
			return true
		}
		r, size := utf8.DecodeRune(tmp)
		if r == utf8.RuneError && size <= 1 {
			u.failed, u.bad = true, u.off
			return false
		}
		p = p[size-len(u.pending):]
		u.off += size
		u.pending = nil
	}
	body := p
	for j := len(p) - 1; j >= 0 && j >= len(p)-(utf8.UTFMax-1); j-- {
		if utf8.RuneStart(p[j]) {
			if !utf8.FullRune(p[j:]) {
				body = p[:j]
				u.pending = bytes.Clone(p[j:])
			}
			break
		}
	}
	if !utf8.Valid(body) {
		u.failed, u.bad = true, u.off+invalidUTF8(body)
		return false
	}
	u.off += len(body)
	return true
}

// end reports whether the text ended on a whole rune.
func (u *utf8Stream) end() bool {
	if !u.failed && len(u.pending) > 0 {
		u.failed, u.bad = true, u.off
	}
	return !u.failed
}

func binaryRefusal(t target, i int) *Refusal {
	return refuse(KindBinary, t.spelled, "%s is binary (a NUL byte at offset %d); stet reads and edits text only; leave it alone or replace it with a tool made for that format", t.spelled, i).with("offset", i)
}

func notUTF8Refusal(t target, off int) *Refusal {
	return refuse(KindNotUTF8, t.spelled, "%s is not valid UTF-8 (first bad byte at offset %d); stet edits UTF-8 text only; convert it first if it is text in another encoding", t.spelled, off).with("offset", off)
}

// checkText refuses bytes that are not text: a NUL in the first 8 KiB
// (binary) or invalid UTF-8 (not_utf8, with the byte offset).
func checkText(t target, data []byte) *Refusal {
	head := data
	if len(head) > 8<<10 {
		head = head[:8<<10]
	}
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return binaryRefusal(t, i)
	}
	if !utf8.Valid(data) {
		return notUTF8Refusal(t, invalidUTF8(data))
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
	case errors.Is(err, fsys.ErrBusy):
		dir := path.Dir(t.rel)
		var be *fsys.BusyError
		if errors.As(err, &be) {
			dir = be.Dir
		}
		dir = filepath.Join(t.root.dir, filepath.FromSlash(dir))
		return &Refusal{Kind: KindConflict, Tool: tool, Path: p, Err: err,
			Message: fmt.Sprintf("refused: another process holds a lock on %s and kept it past the wait; nothing of this call was read or written; retry when it finishes", dir)}
	case errors.Is(err, fsys.ErrTooLarge):
		return ws.tooLarge(tool, t, err)
	case errors.Is(err, fsys.ErrOpenWriter):
		return &Refusal{Kind: KindConflict, Tool: tool, Path: p, Err: err,
			Message: fmt.Sprintf("refused: another process has %s open for writing (a logger, tee -a, a dev server?): what it writes after this change would go to the old file and be lost, so nothing was changed; stop that process or wait until it closes the file, then retry", shownName(p))}
	case errors.Is(err, fsys.ErrConflict):
		return &Refusal{Kind: KindConflict, Tool: tool, Path: p, Err: err,
			Message: fmt.Sprintf("refused: %s was changed by another writer while this call was writing it; nothing of this call was written and the other writer's bytes stand; read it again, then retry", p)}
	}
	return fmt.Errorf("%s %s: %w", tool, p, err)
}

// tooLarge refuses a file over the edit limit, which the tool would have to
// hold whole, with its size and the next step.
func (ws *Workspace) tooLarge(tool string, t target, err error) *Refusal {
	p := t.spelled
	size := int64(-1)
	var tl *fsys.TooLargeError
	if errors.As(err, &tl) {
		size = tl.Size
	}
	what := "change"
	switch tool {
	case "grep":
		what = "search"
	case "move", "delete", "undo":
		what = tool
	}
	r := &Refusal{Kind: KindTooLarge, Tool: tool, Path: p, Err: err,
		Message: fmt.Sprintf("refused: %s is %s bytes, over the %s-byte edit limit; stet does not %s files that large (it would have to hold them whole); read it in windows (read with offset and limit) instead",
			p, policy.Thousands(int(size)), policy.Thousands(int(ws.opts.MaxFileBytes)), what)}
	return r.with("bytes", size, "max_bytes", ws.opts.MaxFileBytes)
}
