package stet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/policy"
)

// DefaultMaxMediaBytes is the largest image or audio file read returns
// (Options.MaxMediaBytes): base64 makes it a third larger, and a response
// must stay under the 10 MiB clients accept.
const DefaultMaxMediaBytes = 5 << 20

// mediaType returns the MIME type of an image or audio file from its first
// bytes, or "" for anything else (text included: an SVG is text). The
// sniffing is net/http's, plus the audio formats it does not know.
func mediaType(head []byte) string {
	if len(head) > 512 {
		head = head[:512]
	}
	switch {
	case bytes.HasPrefix(head, []byte("fLaC")):
		return "audio/flac"
	case bytes.HasPrefix(head, []byte("OggS")):
		return "audio/ogg"
	case len(head) >= 12 && string(head[4:11]) == "ftypM4A":
		return "audio/mp4"
	case len(head) >= 2 && head[0] == 0xFF && (head[1] == 0xFB || head[1] == 0xF3 || head[1] == 0xF2):
		return "audio/mpeg" // an MP3 frame header without an ID3 tag
	}
	mime, _, _ := strings.Cut(http.DetectContentType(head), ";")
	if strings.HasPrefix(mime, "image/") || strings.HasPrefix(mime, "audio/") {
		return mime
	}
	return ""
}

// readMedia answers a read of an image or audio file: its bytes and MIME
// type, for a surface to send as media content (MCP image or audio
// content). The read counts as an observation of the whole file at its
// version. A file over the media limit is refused as too_large.
func (s *Session) readMedia(t target, f io.Reader, head []byte, whole bool, mime string) (*ReadResult, func() error, error) {
	limit := s.ws.opts.MaxMediaBytes
	data := head
	if !whole || int64(len(data)) > limit {
		rest, err := io.ReadAll(io.LimitReader(f, max(0, limit+1-int64(len(data)))))
		if err != nil {
			return nil, nil, s.ws.fileErr("read", t, err)
		}
		data = append(data, rest...)
		if int64(len(data)) > limit {
			return nil, nil, refuse(KindTooLarge, t.spelled, "%s (%s) is over the %s-byte limit for images and audio; stet does not send media that large; describe it with info instead",
				t.spelled, mime, policy.Thousands(int(limit))).with("max_bytes", limit, "mime_type", mime)
		}
	}
	version := string(fsys.VersionOf(data))
	res := &ReadResult{Path: t.display(), Version: version, MimeType: mime, Bytes: len(data), Data: data}
	observe := func() error {
		return s.observeFile(t, version, len(data), frameLines(data), policy.Range{Start: 0, End: len(data)}, true)
	}
	return res, observe, nil
}

// countRest counts the numbered lines of a file whose first bytes are head
// and whose rest r holds, and reports whether it ends with a newline.
func countRest(ctx context.Context, r io.Reader, head []byte) (lines int, lastNL bool, err error) {
	lines = frameLines(head)
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
	if err := s.catchUp(); err != nil {
		return nil, err
	}
	paths := a.Paths
	if paths == nil {
		paths = []string{a.Path}
	}
	budget := max(s.ws.opts.MaxReadBytes/len(paths), min(4<<10, s.ws.opts.MaxReadBytes))
	media := int64(0)
	res := &ReadFilesResult{Files: make([]any, 0, len(paths))}
	for _, p := range paths {
		one := a
		one.Path, one.Paths = p, nil
		r, observe, err := s.prepareRead(ctx, one, budget)
		if err == nil && r.Data != nil {
			if media += int64(len(r.Data)); media > s.ws.opts.MaxMediaBytes {
				err = refuse(KindTooLarge, p, "%s (%s, %s bytes) would take this read past the %s-byte limit for images and audio in one call; read it alone",
					p, r.MimeType, policy.Thousands(len(r.Data)), policy.Thousands(int(s.ws.opts.MaxMediaBytes))).with("max_bytes", s.ws.opts.MaxMediaBytes)
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

// mediaText is the text a model reads for a media read (the media itself
// goes beside it as image or audio content).
func mediaText(r *ReadResult) string {
	return fmt.Sprintf("%s: %s, %s bytes, version %s", shownName(r.Path), r.MimeType, policy.Thousands(r.Bytes), r.Version)
}
