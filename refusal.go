package stet

import (
	"encoding/json"
	"errors"
	"fmt"

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
}

// Error returns the text a model reads: the message, then what the
// refusal shows (see Shown), so that a caller that passes the error on
// shows the model what the session now counts as seen.
func (r *Refusal) Error() string { return refusalText(r) }

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
func refuse(kind, path, format string, args ...any) *Refusal {
	// The message is text a model or a person reads: the path, wherever it
	// stands in it, is shown escaped when it holds control characters
	// (Path keeps it raw for structured results).
	if shown := shownName(path); shown != path {
		for i, a := range args {
			if s, ok := a.(string); ok && s == path {
				args[i] = shown
			}
		}
	}
	return &Refusal{Kind: kind, Path: path, Message: "refused: " + fmt.Sprintf(format, args...)}
}

// with adds structured details to r and returns it.
func (r *Refusal) with(kv ...any) *Refusal {
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
