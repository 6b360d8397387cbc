package engine

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/local"
	"github.com/stet-dev/stet/glob"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/textedit"
	"github.com/stet-dev/stet/tools"
)

// Defaults of the read frame and the size limits (SPEC section 3).
const (
	// DefaultMaxReadBytes is the text a default read window shows at most:
	// with line numbers, and carried in both forms a client receives (the
	// text and the structured frame), it keeps a default read of ordinary
	// source within 25,000 tokens, Claude Code's cap on an MCP tool result
	// (docs/benchmarks.md measures it).
	DefaultMaxReadBytes = 40 << 10
	MaxMaxReadBytes     = 8 << 20
	DefaultMaxFileBytes = 16 << 20
)

// Options configure a Workspace. The zero value is the default policy:
// workspace-write effects, "seen" binding, every .git protected.
type Options struct {
	Effects          policy.Effects // read-only or workspace-write (default)
	Binding          policy.Binding // seen (default), read or full
	Protect          []string       // globs no tool may change, added to the default (every .git)
	NoDefaultProtect bool           // drop the default protection of every .git
	DenyRead         []string       // globs hidden from every tool
	MaxReadBytes     int            // read window byte bound (default 40 KiB, at most 8 MiB)
	MaxFileBytes     int64          // larger files are readable in windows only (default 16 MiB)
	MaxMediaBytes    int64          // larger images and audio files are refused by read (default 5 MiB)

	// State is the journal directory. Empty means
	// $XDG_STATE_HOME/stet/<workspace-id> (~/.local/state when unset).
	State string
	// StateBase, when State is empty, is the directory the state directory
	// is made in: StateBase/<workspace-id>, as the default is under
	// $XDG_STATE_HOME/stet. A server opening workspaces over its clients'
	// roots uses it, so each set of roots has a journal of its own.
	StateBase string
	// NoSweep turns off the removal of leftover temp files, which otherwise
	// runs once per Workspace, just before the first call that will change
	// something, outside protected and deny-read trees.
	NoSweep bool
	// NoGate drops the policy gate: rules 5-9 (observation, freshness,
	// binding, the input guard, warn and save) are not enforced. The floor
	// stays: confinement, effects (read-only), protected and deny-read
	// paths, and the state directory's protection.
	NoGate bool

	// Providers, when set, replace the host backends: one per root, in the
	// order of the roots (for tests and in-memory use).
	Providers []fsys.Provider

	Now  func() time.Time // clock for receipts (default time.Now)
	Rand io.Reader        // randomness for ids (default crypto/rand)

	// Hooks run at fixed points of every commit (fault injection in tests).
	Hooks Hooks
}

// Hooks are test points of the commit sequence.
type Hooks struct {
	// BeforeSwap runs when the new bytes are durable in their temp file, just
	// before they are swapped in (host backends only; path is root-relative).
	BeforeSwap func(path string)
	// AfterSwap runs just after the swap, before the displaced file is handed
	// to the journal and the directory is fsynced (host backends only).
	AfterSwap func(path string)
	// BeforeAdopt runs when the file a change displaced lies in the
	// journal's object store under its staging name, just before the
	// journal takes it as the blob version (host backends that keep it
	// without a copy).
	BeforeAdopt func(version string)
	// BeforeReadback runs after the swap and before the file is read back.
	BeforeReadback func(path string)
	// JournalSync runs before each fsync of the journal (name is relative to
	// the state directory).
	JournalSync func(name string)
	// BeforeIntent runs just before a write-ahead intent is appended; an
	// error from it stands for a journal that cannot take the intent (a
	// full disk), and the change must be refused with nothing moved.
	BeforeIntent func(id string) error
	// Step, when not nil, is told how long each step of a commit took
	// (save, intent, temp, wait, swap, dirsync, readback, receipt, and the
	// whole commit), and, for an edit or a write, the work before it (read:
	// the name resolved and locked, the file read; plan: hashes, checks,
	// rules) and after it (release), for benchmarks: nil in production. The
	// times are exact for one commit at a time.
	Step func(step string, d time.Duration)
}

// Workspace is a set of roots and the policy that guards them. It is safe for
// concurrent use; sessions share its journal and per-file locks.
type Workspace struct {
	face     Face
	RootList []*Root
	Opts     Options
	rules    policy.Rules
	Journal  *journal.Journal
	id       string

	Mu       sync.Mutex
	Sessions map[string]*Session
	swept    sync.Once        // the whole-tree sweep, after a crash was found
	crashed  atomic.Bool      // Open resolved intents of a process that died
	sweptMu  sync.Mutex       // guards sweptDir
	sweptDir map[string]bool  // directories swept by this Workspace, by key
	Clock    *stepClock       // Hooks.Step's timer; nil without the hook
	Bufs     textedit.Buffers // large slices an edit reads and builds in, lent per call (bufPool)
}

// face is what the engine asks of the tools above it, given at Open: the
// engine knows no tool, so a refusal that shows a directory's listing asks
// the facade's list tool for it.
type Face struct {
	// listDir lists dir as the list tool does with no arguments, records it
	// as observed, and returns the result with its text.
	ListDir func(ctx context.Context, s *Session, dir Target) (*tools.ListResult, string, error)
}

type Root struct {
	Dir   string // absolute, as given (cleaned)
	Real  string // after EvalSymlinks
	P     fsys.Provider
	Rules RuleSet // the workspace's rules, with this root's case folding and state directory, judged in every root that holds a file
}

// openWorkspace opens a workspace over roots, asking face for what only
// the tools above the engine can do (see Open).
func OpenWorkspace(roots []string, opts Options, face Face) (*Workspace, error) {
	if len(roots) == 0 {
		return nil, errors.New("stet: no workspace root given")
	}
	opts, err := opts.checked()
	if err != nil {
		return nil, err
	}
	ws := &Workspace{
		face:     face,
		Opts:     opts,
		rules:    policy.Rules{Protect: opts.Protect, DenyRead: opts.DenyRead, NoDefaultProtect: opts.NoDefaultProtect},
		Sessions: map[string]*Session{},
		Clock:    newStepClock(opts.Hooks.Step),
		Bufs:     &BufPool{},
	}
	if err := ws.openRoots(roots); err != nil {
		ws.closeRoots()
		return nil, err
	}
	state, err := ws.stateDir()
	if err != nil {
		ws.closeRoots()
		return nil, err
	}
	j, err := journal.Open(state, journal.Options{Now: opts.Now, OnSync: opts.Hooks.JournalSync})
	if err != nil {
		ws.closeRoots()
		return nil, fmt.Errorf("stet: journal: %w", err)
	}
	ws.Journal = j
	if err := j.Claim(ws.owner()); err != nil {
		ws.Close()
		var oe *journal.OwnerError
		if errors.As(err, &oe) {
			return nil, fmt.Errorf("stet: %w: %w", ErrStateInUse, err)
		}
		return nil, fmt.Errorf("stet: journal: %w", err)
	}
	// The deny-read globs are recorded beside the journal, so that shipping
	// it (stet sync) keeps back what this workspace hides even when the
	// shipper is not given the same flags.
	if err := j.RecordDenyRead(opts.DenyRead); err != nil {
		ws.Close()
		return nil, fmt.Errorf("stet: %w", err)
	}
	ws.ruleRoots(state)
	if opts.Effects != policy.ReadOnly {
		if err := ws.recoverIntents(context.Background()); err != nil {
			ws.Close()
			return nil, fmt.Errorf("stet: journal: %w", err)
		}
	}
	return ws, nil
}

// checked returns o with its defaults filled in, refusing an effects or
// binding mode, a read bound or a glob that cannot be used.
func (opts Options) checked() (Options, error) {
	if opts.Effects == "" {
		opts.Effects = policy.WorkspaceWrite
	}
	if opts.Binding == "" {
		opts.Binding = policy.BindSeen
	}
	if opts.MaxReadBytes <= 0 {
		opts.MaxReadBytes = DefaultMaxReadBytes
	}
	if opts.MaxReadBytes > MaxMaxReadBytes {
		return Options{}, fmt.Errorf("stet: --max-read-bytes %d is over the %d-byte limit", opts.MaxReadBytes, MaxMaxReadBytes)
	}
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = DefaultMaxFileBytes
	}
	if opts.MaxMediaBytes <= 0 {
		opts.MaxMediaBytes = DefaultMaxMediaBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Rand == nil {
		opts.Rand = rand.Reader
	}
	if _, err := policy.ParseEffects(string(opts.Effects)); err != nil {
		return Options{}, fmt.Errorf("stet: %w", err)
	}
	if _, err := policy.ParseBinding(string(opts.Binding)); err != nil {
		return Options{}, fmt.Errorf("stet: %w", err)
	}
	for _, g := range append(append([]string{}, opts.Protect...), opts.DenyRead...) {
		if err := glob.Valid(g); err != nil {
			return Options{}, fmt.Errorf("stet: bad glob %q: %w", g, err)
		}
	}
	return opts, nil
}

// closeRoots closes the providers Open opened.
func (ws *Workspace) closeRoots() {
	for _, r := range ws.RootList {
		if c, ok := r.P.(io.Closer); ok {
			c.Close()
		}
	}
}

// openRoots opens a provider on each root (or takes Options.Providers)
// and sets the workspace's id from the roots' real paths.
func (ws *Workspace) openRoots(roots []string) error {
	opts := ws.Opts
	var ids []string
	for i, dir := range roots {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return fmt.Errorf("stet: root %q: %w", dir, err)
		}
		r := &Root{Dir: abs, Real: abs}
		if opts.Providers != nil {
			if i >= len(opts.Providers) {
				return fmt.Errorf("stet: %d roots but %d providers", len(roots), len(opts.Providers))
			}
			r.P = opts.Providers[i]
		} else {
			if real, err := filepath.EvalSymlinks(abs); err == nil { // a root argument, before its provider opens: not a workspace path
				r.Real = real
			}
			p, err := local.Open(abs, local.Options{Hooks: ws.providerHooks()})
			if err != nil {
				return fmt.Errorf("stet: root %q: %w", dir, err)
			}
			r.P = p
		}
		ws.RootList = append(ws.RootList, r)
		ids = append(ids, r.Real)
	}
	sum := sha256.Sum256([]byte(strings.Join(ids, "\x00")))
	ws.id = hex.EncodeToString(sum[:8])
	return nil
}

// stateDir is the journal's directory: Options.State, else the
// workspace's id under Options.StateBase, else under XDG_STATE_HOME or
// ~/.local/state.
func (ws *Workspace) stateDir() (string, error) {
	opts := ws.Opts
	state := opts.State
	if state == "" && opts.StateBase != "" {
		state = filepath.Join(opts.StateBase, ws.id)
	}
	if state == "" {
		base := os.Getenv("XDG_STATE_HOME")
		if base == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("stet: no state directory: set --state or XDG_STATE_HOME: %w", err)
			}
			base = filepath.Join(home, ".local", "state")
		}
		state = filepath.Join(base, "stet", ws.id)
	}
	return state, nil
}

// ErrStateInUse is returned by Open when the state directory belongs to a
// workspace with other roots: one state directory serves one workspace, so
// an undo in one never acts on the files of another.
var ErrStateInUse = errors.New("state directory belongs to another workspace")

// owner is the identity the journal is bound to: the roots' resolved
// paths, in order (a relative path in a receipt resolves in the first root
// that holds it, so the same roots in another order are another
// workspace).
func (ws *Workspace) owner() journal.Owner {
	roots := make([]string, len(ws.RootList))
	for i, r := range ws.RootList {
		roots[i] = r.Real
	}
	sum := sha256.Sum256([]byte(strings.Join(roots, "\x00")))
	return journal.Owner{Workspace: "sha256:" + hex.EncodeToString(sum[:]), Roots: roots}
}

// ruleRoots gives each root its rules: the workspace's patterns, where the
// state directory lies inside it, and the roots that overlap it
// (linkRoots). Whether the root's filesystem folds case or Unicode forms is
// not asked: the rules compare every spelling a filesystem may take for a
// name on every root (policy.Rules), since no probe can tell it for every
// directory (ext4's casefold and Windows set it per directory, a mount of
// FAT, SMB or FUSE per subtree).
// The state directory is denied and protected whatever the options say
// (policy.Rules.State), so no tool can read or forge the journal.
func (ws *Workspace) ruleRoots(state string) {
	states := []string{filepath.Clean(state)}
	if abs, err := filepath.Abs(state); err == nil {
		states = append(states, abs)
		if real, err := filepath.EvalSymlinks(abs); err == nil { // the state directory: not a workspace path
			states = append(states, real)
		}
	}
	for _, r := range ws.RootList {
		r.Rules = RuleSet{Rules: ws.rules}
		for _, st := range states {
			if !filepath.IsAbs(st) {
				continue
			}
			for _, base := range []string{r.Dir, r.Real} {
				// By the comparison the rules make: a state directory
				// spelled in another case on a volume that folds it is
				// still the one inside the root.
				rel, ok := within(base, st)
				if !ok {
					continue
				}
				if !slices.Contains(r.Rules.State, rel) {
					r.Rules.State = append(r.Rules.State, rel)
				}
			}
		}
		// The resolved path of the state directory, should a symlink on its
		// way lead elsewhere in the root.
		for _, rel := range slices.Clone(r.Rules.State) {
			if res, err := fsys.Trace(r.P, rel); err == nil {
				if last := res[len(res)-1]; !slices.Contains(r.Rules.State, last) {
					r.Rules.State = append(r.Rules.State, last)
				}
			}
		}
		r.Rules.Rules = r.Rules.Rules.Compiled()
	}
	ws.LinkRoots()
}

// Close releases the roots and the journal.
func (ws *Workspace) Close() error {
	var errs []error
	for _, r := range ws.RootList {
		if c, ok := r.P.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	errs = append(errs, ws.Journal.Close())
	return errors.Join(errs...)
}

// ID is the workspace id: a hash of its root directories.
func (ws *Workspace) ID() string { return ws.id }

// Roots returns the absolute root directories.
func (ws *Workspace) Roots() []string {
	out := make([]string, len(ws.RootList))
	for i, r := range ws.RootList {
		out[i] = r.Dir
	}
	return out
}

// StateDir is the journal directory.
func (ws *Workspace) StateDir() string { return ws.Journal.Dir() }

// Effects reports the workspace's effects mode.
func (ws *Workspace) Effects() policy.Effects { return ws.Opts.Effects }

// Session returns the session named id, rebuilding it from the journal the
// first time it is asked for in this process. The names stet keeps for
// itself (ReservedSession) are refused (invalid): a caller cannot write
// into stet's own records or pass its changes off as a person's undo.
func (ws *Workspace) Session(id string) (*Session, error) {
	if ReservedSession(id) {
		return nil, Refuse(KindInvalid, "", "session %s is reserved for stet's own records (names starting with %q, and %q); name another session", ShownName(id), reservedPrefix, ReviewSession).
			With("session", id)
	}
	return ws.SessionOf(id)
}

// reservedPrefix starts the names of stet's internal sessions.
const reservedPrefix = "stet:"

// ReservedSession reports whether id names a session stet keeps for
// itself: the intents' records (every name starting with "stet:") and the
// undos made by stet review and stet undo --session/--receipt (ReviewSession).
func ReservedSession(id string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(id)), reservedPrefix) || id == ReviewSession
}

// session is Session without the reserved-name check, for stet's own
// callers.
func (ws *Workspace) SessionOf(id string) (*Session, error) {
	if id == "" {
		id = "default"
	}
	if strings.ContainsAny(id, "\x00\n") || len(id) > 200 {
		return nil, fmt.Errorf("stet: bad session id %q", id)
	}
	ws.Mu.Lock()
	defer ws.Mu.Unlock()
	if s, ok := ws.Sessions[id]; ok {
		return s, nil
	}
	s := newSession(ws, id)
	if err := s.load(); err != nil {
		return nil, err
	}
	ws.Sessions[id] = s
	return s, nil
}

// sweep removes the temp files that stet processes left behind when they
// died mid-commit, never inside a protected or deny-read directory. The
// commit sequence runs it once every rule has passed, just before a change,
// so a refused call or a dry run never sweeps. A change sweeps its own
// directory, once per Workspace (temp files only ever stand beside the file
// a commit changes); the whole tree is swept only when Open found a
// process that died with a change in flight. Failures are ignored: a
// leftover temp file is clutter, not a reason to refuse a change.
func (ws *Workspace) sweep(t Target) {
	if ws.Opts.NoSweep {
		return
	}
	// Each root's own rules: they know its case folding and where the
	// state directory lies in it.
	skipIn := func(r *Root) func(dir string) bool {
		return func(dir string) bool {
			_, protected := r.Rules.Protected(dir)
			_, denied := r.Rules.Denied(dir)
			return protected || denied
		}
	}
	// The temp files that open intents name may hold the old bytes of a
	// replace or delete stopped between its swap and the handover to the
	// journal: recovery settles them (adoptDisplaced), the sweep keeps them.
	if ws.crashed.Load() {
		ws.swept.Do(func() {
			held, _ := ws.HeldTemps()
			for ri, r := range ws.RootList {
				if ks, ok := r.P.(keepingSweeper); ok {
					ks.SweepKeeping(skipIn(r), func(n string) bool { return held[ri][n] })
					continue
				}
				fsys.Sweep(r.P, skipIn(r))
			}
		})
		return
	}
	skip := skipIn(t.Root)
	dir := t.Parent()
	key := dir.Key()
	ws.sweptMu.Lock()
	done := ws.sweptDir[key]
	if ws.sweptDir == nil {
		ws.sweptDir = map[string]bool{}
	}
	ws.sweptDir[key] = true
	ws.sweptMu.Unlock()
	if done || skip(dir.Rel) {
		return
	}
	if ks, ok := dir.Root.P.(keepingSweeper); ok {
		held, _ := ws.HeldTemps()
		ks.SweepDirKeeping(dir.Rel, func(n string) bool { return held[dir.Ri][n] })
		return
	}
	fsys.SweepDir(dir.Root.P, dir.Rel)
}

// keepingSweeper is a provider whose sweep can spare named temp files
// (fsys/local).
type keepingSweeper interface {
	SweepKeeping(skip func(dir string) bool, keep func(name string) bool) (int, error)
	SweepDirKeeping(name string, keep func(name string) bool) (int, error)
}

// newID returns "r_" and 16 random hex digits.
func (ws *Workspace) newID(prefix string) string {
	var b [8]byte
	if _, err := io.ReadFull(ws.Opts.Rand, b[:]); err != nil {
		// Fall back to the clock: ids need to be unique, not secret.
		return fmt.Sprintf("%s%016x", prefix, ws.Opts.Now().UnixNano())
	}
	return prefix + hex.EncodeToString(b[:])
}

func (ws *Workspace) Now() time.Time { return ws.Opts.Now().UTC() }

// lock takes the per-file lock of t.
func (ws *Workspace) lock(ctx context.Context, t Target) (func(), error) {
	return t.handle().Lock(ctx)
}

// providerHooks are the host backends' hooks: Hooks.BeforeSwap, and the
// step clock's marks when Hooks.Step is set.
func (ws *Workspace) providerHooks() fsys.Hooks {
	h := fsys.Hooks{BeforeSwap: ws.Opts.Hooks.BeforeSwap, AfterSwap: ws.Opts.Hooks.AfterSwap}
	if k := ws.Clock; k != nil {
		before, after := h.BeforeSwap, h.AfterSwap
		h.BeforeSwap = func(name string) {
			k.mark(true)
			if before != nil {
				before(name)
			}
		}
		h.AfterSwap = func(name string) {
			k.mark(false)
			if after != nil {
				after(name)
			}
		}
	}
	return h
}

// DefaultMaxMediaBytes is the largest image or audio file read returns
// (Options.MaxMediaBytes): base64 makes it a third larger, and a response
// must stay under the 10 MiB clients accept.
const DefaultMaxMediaBytes = 5 << 20

// reviewSession is the session every undo made by UndoChanges belongs to:
// stet review and stet undo --session/--receipt. Its receipts can be
// undone like any other (a redo).
const ReviewSession = "review"
