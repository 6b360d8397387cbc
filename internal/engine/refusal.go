package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/tools"
)

// Refusal kinds (SPEC section 4). They are API: messages may improve,
// kinds do not change. Their values live in package tools, which the schemas
// of every surface are built from.
const (
	KindInvalid    = tools.KindInvalid
	KindOutside    = tools.KindOutside
	KindNotFound   = tools.KindNotFound
	KindNotRegular = tools.KindNotRegular
	KindReadOnly   = tools.KindReadOnly
	KindProtected  = tools.KindProtected
	KindNotRead    = tools.KindNotRead
	KindChanged    = tools.KindChanged
	KindNotSeen    = tools.KindNotSeen
	KindInput      = tools.KindInput
	KindExists     = tools.KindExists
	KindNoMatch    = tools.KindNoMatch
	KindAmbiguous  = tools.KindAmbiguous
	KindBinary     = tools.KindBinary
	KindNotUTF8    = tools.KindNotUTF8
	KindTooLarge   = tools.KindTooLarge
	KindStalled    = tools.KindStalled
	KindConflict   = tools.KindConflict
)

// Kinds lists every refusal kind in the order of SPEC section 4 (the list
// of tools.RefusalKinds). Callers must not modify it.
var Kinds = tools.RefusalKinds()

// kindError is the sentinel type behind ErrInvalid and friends.
type kindError string

func (k kindError) Error() string { return "refused: " + string(k) }

// Sentinels, one per kind: errors.Is(err, stet.ErrChanged) holds for a
// *Refusal of kind "changed".
var (
	ErrInvalid    error = kindError(KindInvalid)
	ErrOutside    error = kindError(KindOutside)
	ErrNotFound   error = kindError(KindNotFound)
	ErrNotRegular error = kindError(KindNotRegular)
	ErrReadOnly   error = kindError(KindReadOnly)
	ErrProtected  error = kindError(KindProtected)
	ErrNotRead    error = kindError(KindNotRead)
	ErrChanged    error = kindError(KindChanged)
	ErrNotSeen    error = kindError(KindNotSeen)
	ErrInput      error = kindError(KindInput)
	ErrExists     error = kindError(KindExists)
	ErrNoMatch    error = kindError(KindNoMatch)
	ErrAmbiguous  error = kindError(KindAmbiguous)
	ErrBinary     error = kindError(KindBinary)
	ErrNotUTF8    error = kindError(KindNotUTF8)
	ErrTooLarge   error = kindError(KindTooLarge)
	ErrStalled    error = kindError(KindStalled)
	ErrConflict   error = kindError(KindConflict)
)

// Refusal is a tool call that policy or the file refused. It is a result,
// not a crash: Message names the file, what was seen and the one next step,
// and nothing on disk changed. Use errors.As to get it, or errors.Is with a
// kind sentinel to branch.
type Refusal struct {
	Kind    string         // one of Kinds
	Tool    string         // the tool that refused
	Path    string         // the path as the call spelled it
	Message string         // the text a model reads, starting "refused: "
	Details map[string]any // extra structured details (offset, limit, lines, ...)
	Err     error          // the underlying cause, if any

	// listing is the text of the listing Details[ShownListing] holds, as
	// the list tool shows it (rendered by the facade that listed it).
	listing string
}

// Error returns the text a model reads: the message, then what the
// refusal shows (see Shown), so that a caller that passes the error on
// shows the model what the session now counts as seen.
func (r *Refusal) Error() string { return RefusalText(r) }

// Unwrap returns the cause.
func (r *Refusal) Unwrap() error { return r.Err }

// Is matches the kind sentinel of r.
func (r *Refusal) Is(target error) bool {
	k, ok := target.(kindError)
	return ok && string(k) == r.Kind
}

// MarshalJSON renders {"refused": kind, "message": ..., "path": ..., details...}.
func (r *Refusal) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(r.Details)+3)
	for k, v := range r.Details {
		m[k] = v
	}
	m["refused"] = r.Kind
	m["message"] = r.Message
	if r.Path != "" {
		m["path"] = r.Path
	}
	return json.Marshal(m)
}

// refuse builds a *Refusal. The message is "refused: " + the formatted text.
func Refuse(kind, path, format string, args ...any) *Refusal {
	// The message is text a model or a person reads: the path, wherever it
	// stands in it, is shown escaped when it holds control characters
	// (Path keeps it raw for structured results).
	if shown := ShownName(path); shown != path {
		for i, a := range args {
			if s, ok := a.(string); ok && s == path {
				args[i] = shown
			}
		}
	}
	return &Refusal{Kind: kind, Path: path, Message: "refused: " + fmt.Sprintf(format, args...)}
}

// with adds structured details to r and returns it.
func (r *Refusal) With(kv ...any) *Refusal {
	if r.Details == nil {
		r.Details = map[string]any{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		r.Details[kv[i].(string)] = kv[i+1]
	}
	return r
}

// AsRefusal returns the *Refusal in err's chain, if any.
func AsRefusal(err error) (*Refusal, bool) {
	var r *Refusal
	ok := errors.As(err, &r)
	return r, ok
}

func ToRefusal(err error) *Refusal {
	if r, ok := AsRefusal(err); ok {
		return r
	}
	return &Refusal{Kind: KindInvalid, Message: "refused: " + err.Error(), Err: err}
}

// fileErr turns a backend error into a refusal where it has a kind, and
// wraps it otherwise. Raw OS error text never reaches the message.
func (ws *Workspace) FileErr(tool string, t Target, err error) error {
	p := t.Spelled
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
		dir := path.Dir(t.Rel)
		var be *fsys.BusyError
		if errors.As(err, &be) {
			dir = be.Dir
		}
		dir = filepath.Join(t.Root.Dir, filepath.FromSlash(dir))
		return &Refusal{Kind: KindConflict, Tool: tool, Path: p, Err: err,
			Message: fmt.Sprintf("refused: another process holds a lock on %s and kept it past the wait; nothing of this call was read or written; retry when it finishes", dir)}
	case errors.Is(err, fsys.ErrTooLarge):
		return ws.tooLarge(tool, t, err)
	case errors.Is(err, fsys.ErrOpenWriter):
		// What the backend saw: who holds it (where /proc shows it) and how
		// long it stayed open.
		who, guess, kept := "another process", " (a logger, tee -a, a dev server?)", ""
		var we *fsys.WriterError
		if errors.As(err, &we) {
			if len(we.Holders) > 0 {
				who, guess = strings.Join(we.Holders, ", "), ""
			}
			kept = " and kept it open through a " + we.Waited.String() + " wait"
		}
		r := &Refusal{Kind: KindConflict, Tool: tool, Path: p, Err: err,
			Message: fmt.Sprintf("refused: %s has %s open for writing%s%s: what it writes after this change would go to the old file and be lost, so nothing was changed; stop that process or wait until it closes the file, then retry", who, ShownName(p), guess, kept)}
		if we != nil && len(we.Holders) > 0 {
			r.With("holders", we.Holders)
		}
		return r
	case errors.Is(err, fsys.ErrMoved):
		return &Refusal{Kind: KindConflict, Tool: tool, Path: p, Err: err,
			Message: fmt.Sprintf("refused: a directory on the way to %s was moved or replaced by another process while this call was writing it, so the change could have landed outside its path; nothing was changed; list the directory again, then retry", ShownName(p))}
	case errors.Is(err, fsys.ErrConflict):
		return &Refusal{Kind: KindConflict, Tool: tool, Path: p, Err: err,
			Message: fmt.Sprintf("refused: %s was changed by another writer while this call was writing it; nothing of this call was written and the other writer's bytes stand; read it again, then retry", p)}
	}
	return fmt.Errorf("%s %s: %w", tool, p, err)
}

// tooLarge refuses a file over the edit limit, which the tool would have to
// hold whole, with its size and the next step.
func (ws *Workspace) tooLarge(tool string, t Target, err error) *Refusal {
	p := t.Spelled
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
			p, policy.Thousands(int(size)), policy.Thousands(int(ws.Opts.MaxFileBytes)), what)}
	return r.With("bytes", size, "max_bytes", ws.Opts.MaxFileBytes)
}

// shownName is a file name as text shows it: as is, unless it holds a
// control character, invalid UTF-8, a line or paragraph separator, or
// starts with a double quote; then quoted and escaped (strconv.Quote), so
// that it cannot pass for several names or rows, and a raw name cannot pass
// for a quoted one.
func ShownName(name string) string {
	if strings.HasPrefix(name, `"`) || !utf8.ValidString(name) {
		return strconv.Quote(name)
	}
	for _, r := range name {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return strconv.Quote(name)
		}
	}
	return name
}
