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
	"time"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/engine"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/receipt"
)

// Info describes a file or directory: type, size, lines (for a text file,
// as read numbers them), mode, modification time, version and hard link
// count. It observes nothing: a file described is not read, and a
// directory described is not listed. Finding a file's version and lines
// reads it through once, streaming (its bytes are never held whole).
func (s *Session) Info(ctx context.Context, a InfoArgs) (*InfoResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.e.CatchUp(); err != nil {
		return nil, err
	}
	if ref := checkArgs("info", a); ref != nil {
		return nil, ref
	}
	t, ref := s.e.Resolve("info", a.Path)
	if ref != nil {
		return nil, ref
	}
	if ref := s.e.WS.Denied(t); ref != nil {
		return nil, ref
	}
	st, err := t.Root.P.Stat(t.Rel)
	if err != nil {
		return nil, s.e.WS.FileErr("info", t, err)
	}
	res := &InfoResult{Path: t.Display(), Type: string(st.Type), Size: st.Size, Mode: receipt.FormatMode(st.Mode), Links: max(st.Links, 1)}
	if !st.ModTime.IsZero() {
		res.Mtime = st.ModTime.UTC().Format(time.RFC3339Nano)
	}
	if st.Type != fsys.TypeFile {
		return res, nil
	}
	f, info, err := fsys.Open(t.Root.P, t.Rel)
	if err != nil {
		return nil, s.e.WS.FileErr("info", t, err)
	}
	defer f.Close()
	sum, err := scanInfo(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("info %s: %w", t.Spelled, err)
	}
	res.Size, res.Version = sum.size, sum.version
	if sum.text {
		res.Lines = sum.lines
	}
	if info.Links > 0 {
		res.Links = info.Links
	}
	return res, nil
}

// infoScan is what one pass over a file tells info.
type infoScan struct {
	size    int64
	version string
	lines   int  // numbered lines, as a frame counts them
	text    bool // no NUL in the first 8 KiB, valid UTF-8 throughout
}

func scanInfo(ctx context.Context, r io.Reader) (infoScan, error) {
	h := sha256.New()
	var u engine.Utf8Stream
	sc := infoScan{lines: 1, text: true}
	buf := make([]byte, scanChunk)
	for {
		if err := ctx.Err(); err != nil {
			return infoScan{}, err
		}
		n, err := r.Read(buf)
		p := buf[:n]
		if sc.text && sc.size < 8<<10 {
			head := p[:min(int64(len(p)), 8<<10-sc.size)]
			if bytes.IndexByte(head, 0) >= 0 {
				sc.text = false
			}
		}
		if sc.text && !u.Write(p) {
			sc.text = false
		}
		h.Write(p)
		sc.lines += bytes.Count(p, []byte{'\n'})
		sc.size += int64(n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return infoScan{}, err
		}
	}
	if sc.text && !u.End() {
		sc.text = false
	}
	sc.version = fsys.VersionPrefix + hex.EncodeToString(h.Sum(nil))
	return sc, nil
}

func infoText(r *InfoResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s, %s bytes", engine.ShownName(r.Path), r.Type, policy.Thousands(int(r.Size)))
	if r.Type == "file" && r.Lines > 0 {
		fmt.Fprintf(&b, ", %s", count(r.Lines, "line", "lines"))
	}
	fmt.Fprintf(&b, "\nmode %s, modified %s, %s", r.Mode, r.Mtime, count(r.Links, "link", "links"))
	if r.Version != "" {
		fmt.Fprintf(&b, "\nversion %s", r.Version)
	}
	return b.String()
}
