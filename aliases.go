package stet

import "github.com/stet-dev/stet/internal/engine"

// Options, hooks and refusals are the engine's: the facade hands them on.
type (
	// Options configure a Workspace; see engine.Options.
	Options = engine.Options
	// Hooks let tests and benchmarks observe or interrupt the commit
	// sequence between its steps.
	Hooks = engine.Hooks
	// Refusal is a tool call that policy or the file refused: a result,
	// not a crash. Its Kind is stable API.
	Refusal = engine.Refusal
	// VerifyError reports a change that landed but whose receipt did not
	// verify against the bytes read back.
	VerifyError = engine.VerifyError
)

// Defaults of the read frame and the size limits (SPEC section 3).
const (
	// DefaultMaxReadBytes is the text a default read window shows at most.
	DefaultMaxReadBytes = engine.DefaultMaxReadBytes
	// MaxMaxReadBytes is the largest read window a workspace may be given.
	MaxMaxReadBytes = engine.MaxMaxReadBytes
	// DefaultMaxFileBytes is the largest file a tool edits whole.
	DefaultMaxFileBytes = engine.DefaultMaxFileBytes
	// DefaultMaxMediaBytes is the largest image or audio file read returns.
	DefaultMaxMediaBytes = engine.DefaultMaxMediaBytes
)

// Refusal kinds (SPEC section 4): Refusal.Kind holds one of them.
const (
	KindInvalid    = engine.KindInvalid
	KindOutside    = engine.KindOutside
	KindNotFound   = engine.KindNotFound
	KindNotRegular = engine.KindNotRegular
	KindReadOnly   = engine.KindReadOnly
	KindProtected  = engine.KindProtected
	KindNotRead    = engine.KindNotRead
	KindChanged    = engine.KindChanged
	KindNotSeen    = engine.KindNotSeen
	KindInput      = engine.KindInput
	KindExists     = engine.KindExists
	KindNoMatch    = engine.KindNoMatch
	KindAmbiguous  = engine.KindAmbiguous
	KindBinary     = engine.KindBinary
	KindNotUTF8    = engine.KindNotUTF8
	KindTooLarge   = engine.KindTooLarge
	KindStalled    = engine.KindStalled
	KindConflict   = engine.KindConflict
)

// Details keys of a refusal that shows what it asks the model to see.
const (
	// ShownFrame holds a *ReadResult: the frame of a file the session had
	// not read, or of lines it had not seen, now observed.
	ShownFrame = engine.ShownFrame
	// ShownListing holds a *ListResult: the listing of a directory the
	// session had not listed, now observed.
	ShownListing = engine.ShownListing
	// ShownEach holds []*Refusal: the refusals of several files a call
	// needs seen, each with what it shows.
	ShownEach = engine.ShownEach
)

// Kinds lists every refusal kind in the order of SPEC section 4. Callers
// must not modify it.
var Kinds = engine.Kinds

// Sentinels, one per kind: errors.Is(err, stet.ErrChanged) holds for a
// *Refusal of kind "changed".
var (
	ErrInvalid    = engine.ErrInvalid
	ErrOutside    = engine.ErrOutside
	ErrNotFound   = engine.ErrNotFound
	ErrNotRegular = engine.ErrNotRegular
	ErrReadOnly   = engine.ErrReadOnly
	ErrProtected  = engine.ErrProtected
	ErrNotRead    = engine.ErrNotRead
	ErrChanged    = engine.ErrChanged
	ErrNotSeen    = engine.ErrNotSeen
	ErrInput      = engine.ErrInput
	ErrExists     = engine.ErrExists
	ErrNoMatch    = engine.ErrNoMatch
	ErrAmbiguous  = engine.ErrAmbiguous
	ErrBinary     = engine.ErrBinary
	ErrNotUTF8    = engine.ErrNotUTF8
	ErrTooLarge   = engine.ErrTooLarge
	ErrStalled    = engine.ErrStalled
	ErrConflict   = engine.ErrConflict
)

// ErrStateInUse is returned by Open when the state directory belongs to
// another workspace.
var ErrStateInUse = engine.ErrStateInUse

// AsRefusal returns err as a *Refusal when it is one (or wraps one).
func AsRefusal(err error) (*Refusal, bool) { return engine.AsRefusal(err) }

// ReservedSession reports whether id names a session stet keeps for its
// own records (see Workspace.Session).
func ReservedSession(id string) bool { return engine.ReservedSession(id) }
