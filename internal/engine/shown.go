package engine

import (
	"context"
	"strings"

	"github.com/stet-dev/stet/frame"
	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/tools"
)

// Rule 5 refusals that show what the session must see (SPEC section 4):
// a not_read refusal of a file that fits in one default read window
// carries the file's frame, and one of a file to be created in a directory
// never listed carries the directory's listing. What is shown is recorded
// as an observation of exactly those bytes, as read or list would record
// it, so the same call retried lands, unless the file changed in between
// (then the retry is refused as changed: the observation names the
// version shown).

// Details keys of a refusal that shows what it asks the model to see.
const (
	// ShownFrame holds a *tools.ReadResult: the whole-file frame of a file the
	// session had not read, or the window of lines it had not seen, now
	// observed at its version.
	ShownFrame = "frame"
	// ShownListing holds a *ListResult: the listing (bounded as list) of
	// a directory the session had not listed, now observed.
	ShownListing = "listing"
	// ShownEach holds []*Refusal: the refusals of several files a call
	// needs seen (a patch's), each with what it shows, all now observed.
	ShownEach = "each"
)

// Shown returns the text of what r shows the model besides its message:
// the frame or the listing a rule-5 refusal carries, as read or list
// would show it, or "" when r carries neither.
func (r *Refusal) Shown() string {
	if v, ok := r.Details[ShownFrame].(*tools.ReadResult); ok {
		return frameText(v)
	}
	if _, ok := r.Details[ShownListing].(*tools.ListResult); ok {
		return r.listing
	}
	if each, ok := r.Details[ShownEach].([]*Refusal); ok {
		parts := make([]string, len(each))
		for i, e := range each {
			parts[i] = RefusalText(e)
		}
		return strings.Join(parts, "\n\n")
	}
	return ""
}

// frameText is the text a model reads of a text read's result: the frame,
// then its notes.
func frameText(r *tools.ReadResult) string {
	if len(r.Notes) == 0 {
		return r.Frame
	}
	return r.Frame + "\nnote: " + strings.Join(r.Notes, "\nnote: ")
}

// showing attaches a directory's listing, and its text as list shows it,
// to r.
func (r *Refusal) showing(listing *tools.ListResult, text string) *Refusal {
	r.listing = text
	return r.With(ShownListing, listing)
}

// refusalText is the text a model reads of r: its message, then what it
// shows.
func RefusalText(r *Refusal) string {
	if shown := r.Shown(); shown != "" {
		return r.Message + "\n\n" + shown
	}
	return r.Message
}

// shownReadBytes is the byte bound of the window a refusal may show: the
// default read window's, never a raised --max-read-bytes, so a refusal
// stays within the context budget of a default read whatever the server
// settings (and far below any response limit).
func (s *Session) shownReadBytes() int {
	return min(s.WS.Opts.MaxReadBytes, DefaultMaxReadBytes)
}

// showFile returns the whole-file read result of cur, the bytes of t at
// version ver, and records it as this session's observation of t, when cur
// is text that fits in one default read window; otherwise nil. The caller
// holds t's lock, so the bytes shown are the bytes at ver.
func (s *Session) showFile(t Target, cur []byte, ver fsys.Version) *tools.ReadResult {
	if CheckText(t, cur) != nil || int64(len(cur)) > s.WS.Opts.MaxFileBytes {
		return nil
	}
	w, err := frame.EncodeWindow(cur, frame.Options{MaxBytes: s.shownReadBytes()})
	if err != nil || !w.Whole {
		return nil
	}
	if err := s.ObserveFile(t, string(ver), len(cur), w.Lines, policy.Range{Start: w.Start, End: w.End}, true); err != nil {
		return nil // not recorded: the refusal says read it first
	}
	return &tools.ReadResult{Path: t.Display(), Version: string(ver), Lines: w.Lines, From: w.From, To: w.To, Frame: w.Frame}
}

// showLines returns the window of lines from..to of t (which holds cur),
// as a read of them shows it, and records those lines as seen at cur's
// version, so that the call a not_seen refusal answered can land when
// retried; nil when they do not fit one default read window (the refusal
// then names the offset and limit to read).
func (s *Session) showLines(t Target, cur []byte, from, to int) *tools.ReadResult {
	if CheckText(t, cur) != nil {
		return nil
	}
	w, err := frame.EncodeWindow(cur, frame.Options{Offset: from, Limit: to - from + 1, MaxBytes: s.shownReadBytes()})
	if err != nil || w.From != from || w.To < to {
		return nil
	}
	ver := fsys.VersionOf(cur)
	if err := s.ObserveFile(t, string(ver), len(cur), w.Lines, policy.Range{Start: w.Start, End: w.End}, w.Whole); err != nil {
		return nil
	}
	return &tools.ReadResult{Path: t.Display(), Version: string(ver), Lines: w.Lines, From: w.From, To: w.To, Frame: w.Frame}
}

// showDir returns the listing of dir, as a list of it with no arguments
// shows it, with its text, and records it as observed (list does); nil
// when it cannot be listed. The list tool is the facade's (Face.ListDir).
func (s *Session) showDir(ctx context.Context, dir Target) (*tools.ListResult, string) {
	if s.WS.Denied(dir) != nil || s.WS.face.ListDir == nil {
		return nil, ""
	}
	res, text, err := s.WS.face.ListDir(ctx, s, dir)
	if err != nil {
		return nil, ""
	}
	return res, text
}
