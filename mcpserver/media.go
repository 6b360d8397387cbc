package mcpserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/stet-dev/stet"
)

// mediaOf returns the images and audio a result carries: a read of an
// image or audio file, or the media files of a read with paths.
func mediaOf(structured any) []*stet.ReadResult {
	switch r := structured.(type) {
	case *stet.ReadResult:
		if r.Data != nil {
			return []*stet.ReadResult{r}
		}
	case *stet.ReadFilesResult:
		var out []*stet.ReadResult
		for _, f := range r.Files {
			if rr, ok := f.(*stet.ReadResult); ok && rr.Data != nil {
				out = append(out, rr)
			}
		}
		return out
	}
	return nil
}

// contentBlock is one MCP content block of a media result.
type contentBlock struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	// Resource is an embedded resource's contents (type "resource").
	Resource *resourceBlob `json:"resource,omitempty"`
}

// resourceBlob is an embedded resource holding bytes: its URI, MIME type
// and the bytes in base64.
type resourceBlob struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType"`
	Blob     string `json:"blob"`
}

// encodeMedia is encodeResult for a result with images or audio: the text
// block, then one image or audio block per file (base64, with its MIME
// type), then the structured result (which never holds the bytes).
func encodeMedia(text, notice string, structured any, media []*stet.ReadResult, isError bool) ([]byte, error) {
	if notice != "" {
		text += "\n\n" + notice
	}
	blocks := []contentBlock{{Type: "text", Text: text}}
	for _, m := range media {
		kind := "image"
		if strings.HasPrefix(m.MimeType, "audio/") {
			kind = "audio"
		}
		blocks = append(blocks, contentBlock{Type: kind, Data: base64.StdEncoding.EncodeToString(m.Data), MimeType: m.MimeType})
	}
	body := struct {
		Content           []contentBlock `json:"content"`
		StructuredContent any            `json:"structuredContent"`
		IsError           bool           `json:"isError,omitempty"`
	}{blocks, structured, isError}
	var b bytes.Buffer
	b.Write(make([]byte, headroom))
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
