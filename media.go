package stet

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/engine"
	"github.com/stet-dev/stet/policy"
)

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
func (s *Session) readMedia(t engine.Target, f io.Reader, head []byte, whole bool, mime string) (*ReadResult, func() error, error) {
	limit := s.e.WS.Opts.MaxMediaBytes
	data := head
	if !whole || int64(len(data)) > limit {
		rest, err := io.ReadAll(io.LimitReader(f, max(0, limit+1-int64(len(data)))))
		if err != nil {
			return nil, nil, s.e.WS.FileErr("read", t, err)
		}
		data = append(data, rest...)
		if int64(len(data)) > limit {
			return nil, nil, engine.Refuse(KindTooLarge, t.Spelled, "%s (%s) is over the %s-byte limit for images and audio; stet does not send media that large; describe it with info instead",
				t.Spelled, mime, policy.Thousands(int(limit))).With("max_bytes", limit, "mime_type", mime)
		}
	}
	version := string(fsys.VersionOf(data))
	res := &ReadResult{Path: t.Display(), Version: version, MimeType: mime, Bytes: len(data), Data: data}
	observe := func() error {
		return s.e.ObserveFile(t, version, len(data), engine.FrameLines(data), policy.Range{Start: 0, End: len(data)}, true)
	}
	return res, observe, nil
}

// mediaText is the text a model reads for a media read (the media itself
// goes beside it as image or audio content).
func mediaText(r *ReadResult) string {
	return fmt.Sprintf("%s: %s, %s bytes, version %s", engine.ShownName(r.Path), r.MimeType, policy.Thousands(r.Bytes), r.Version)
}
