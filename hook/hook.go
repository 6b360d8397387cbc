package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/stet-dev/stet"
)

// Kind is what an event is, in stet's terms.
type Kind int

// The kinds of events.
const (
	Other        Kind = iota // nothing stet acts on: answered "no opinion"
	Prompt                   // the user's request, for the input guard
	BeforeRead               // a read by the client's tool, before it runs
	AfterRead                // a read by the client's tool, after it ran
	BeforeChange             // a change by the client's tool, before it runs
	AfterChange              // a change by the client's tool, after it ran
	ChangeFailed             // a change by the client's tool that failed
	Landed                   // a change the client tells of only after it landed (Edits of Path)
)

// Event is one hook event of a client, read into stet's terms.
type Event struct {
	Kind    Kind
	Name    string  // the client's name of the event
	Session string  // the client's id of its session
	Cwd     string  // the client's working directory, where relative paths start
	CallID  string  // the client's id of the tool call
	Tool    string  // the client's name of the tool
	Prompt  string  // Prompt: the request
	Path    string  // BeforeRead, AfterRead: the file
	Offset  int     // AfterRead: the first line shown (1-based; 0: the first)
	Limit   int     // AfterRead: how many lines were shown (0: to the end)
	Shown   *string // AfterRead: the text the tool returned, when the client reports it
	// Changes are, for BeforeChange, the call's changes in stet's terms:
	// stet.EditArgs, stet.WriteArgs, stet.PatchArgs or stet.ClientRewrite,
	// one a file, paths as the client gave them (made absolute from Cwd by
	// Handle).
	Changes []any
	// Edits are, for Landed, the replacements the client made in Path.
	Edits []stet.EditOp
	// ObserveOnAllow: the read is told of only before it runs (Cursor):
	// once let through, it is an observation of the whole file.
	ObserveOnAllow bool
	// ReadsUnseen: the client reads files through its shell, which no
	// hook shows (Codex). Before its change, the files it updates count as
	// read at the bytes they hold: a patch applies only where its context
	// and removed lines match them exactly, so it cannot be stale.
	ReadsUnseen bool
}

// Answer is stet's answer to an event, before a client's format words it.
type Answer struct {
	Deny string // a refusal that blocks the call, as the model reads it; "" lets it through
	Note string // for the model, after a change whose file does not hold what the tool said
	Warn string // for the user: an event let through that stet could not decide
}

// Reply is what the hook process writes and how it exits.
type Reply struct {
	Stdout []byte
	Stderr string
	Code   int
}

// Session is what a hook needs of a stet session.
type Session interface {
	Turn(request string, inputs ...string) error
	PrepareClient(ctx context.Context, call stet.ClientCall, changes ...any) (*stet.ClientPlan, error)
	FinishClient(ctx context.Context, id string) ([]*stet.MutationResult, error)
	FailClient(ctx context.Context, id string) error
	ObserveClient(ctx context.Context, r stet.ClientRead) error
	CheckClientRead(tool, path string) error
	RecordClientEdits(ctx context.Context, call stet.ClientCall, path string, edits []stet.EditOp) (*stet.MutationResult, error)
}

// Opener opens the stet session of a client's session (its id, already
// prefixed with the client's name) for an event whose working directory is
// cwd, and returns what closes it.
type Opener func(cwd, session string) (Session, func(), error)

// Handle reads one event of client c and answers it. It never panics on
// input and never fails the client's call for a reason of its own: an
// event it cannot read is "no opinion" (logged through logf), a change it
// cannot decide is refused with the reason, a read it cannot decide passes
// with a warning.
func Handle(ctx context.Context, c *Client, in []byte, open Opener, logf func(format string, args ...any)) Reply {
	ev, err := c.parse(in)
	if err != nil {
		logf("stet hook %s: %v; answered with no opinion", c.Name, err)
		return c.reply(ev, Answer{})
	}
	if ev.Kind == Other {
		return c.reply(ev, Answer{})
	}
	ev.Path = absIn(ev.Cwd, ev.Path)
	for i, ch := range ev.Changes {
		ev.Changes[i] = changeIn(ev.Cwd, ch)
	}
	a := decide(ctx, c, ev, open)
	if a.Warn != "" {
		logf("stet hook %s: %s", c.Name, a.Warn)
	}
	return c.reply(ev, a)
}

// decide answers one event through the facade.
func decide(ctx context.Context, c *Client, ev Event, open Opener) Answer {
	sid := c.Name
	if ev.Session != "" {
		sid += "-" + ev.Session
	}
	s, closeFn, err := open(ev.Cwd, sid)
	if err != nil {
		return cannot(ev, err)
	}
	defer closeFn()
	switch ev.Kind {
	case Prompt:
		if err := s.Turn(ev.Prompt); err != nil {
			return Answer{Warn: fmt.Sprintf("stet could not pin this request for the input guard: %v", err)}
		}
	case BeforeRead:
		if err := s.CheckClientRead(ev.Tool, ev.Path); err != nil {
			if r, ok := stet.AsRefusal(err); ok {
				if r.Kind == stet.KindOutside {
					return Answer{} // not stet's to judge: outside the workspace
				}
				return Answer{Deny: r.Error()}
			}
			return Answer{Warn: fmt.Sprintf("stet could not check the read of %s: %v", ev.Path, err)}
		}
		if ev.ObserveOnAllow {
			s.ObserveClient(ctx, stet.ClientRead{Tool: ev.Tool, Path: ev.Path}) // a file stet cannot read is not observed; the read goes on
		}
	case AfterRead:
		if err := s.ObserveClient(ctx, stet.ClientRead{Tool: ev.Tool, Path: ev.Path, Offset: ev.Offset, Limit: ev.Limit, Shown: ev.Shown}); err != nil {
			if _, ok := stet.AsRefusal(err); !ok {
				return Answer{Warn: fmt.Sprintf("stet could not record the read of %s: %v", ev.Path, err)}
			}
		}
	case BeforeChange:
		if ev.ReadsUnseen {
			for _, ch := range ev.Changes {
				for _, p := range updated(ch) {
					s.ObserveClient(ctx, stet.ClientRead{Tool: ev.Tool, Path: p}) // a file stet cannot read is refused below, by the change's own rules
				}
			}
		}
		_, err := s.PrepareClient(ctx, stet.ClientCall{ID: ev.CallID, Tool: ev.Tool}, ev.Changes...)
		if err != nil {
			if r, ok := stet.AsRefusal(err); ok {
				return Answer{Deny: clientWords(r.Error())}
			}
			return cannot(ev, err)
		}
	case AfterChange:
		res, err := s.FinishClient(ctx, ev.CallID)
		if err != nil {
			return Answer{Warn: fmt.Sprintf("stet could not record %s's change: %v; run stet verify --all", ev.Tool, err)}
		}
		var notes []string
		for _, r := range res {
			if !r.Receipt.Verified {
				notes = append(notes, "stet: "+r.Message)
			}
		}
		return Answer{Note: strings.Join(notes, "\n")}
	case ChangeFailed:
		if err := s.FailClient(ctx, ev.CallID); err != nil {
			return Answer{Warn: fmt.Sprintf("stet could not close %s's failed call: %v", ev.Tool, err)}
		}
	case Landed:
		res, err := s.RecordClientEdits(ctx, stet.ClientCall{ID: ev.CallID, Tool: ev.Tool}, ev.Path, ev.Edits)
		if err != nil {
			return Answer{Warn: fmt.Sprintf("stet could not record %s's change of %s: %v", ev.Tool, ev.Path, err)}
		}
		if !res.Receipt.Verified {
			return Answer{Note: "stet: " + res.Message}
		}
	}
	return Answer{}
}

// clientWords rewords the next step of a refusal for a client's own
// tools, which have no overwrite argument: the user lifts the input guard
// by asking for the rewrite in their next message (a request that asks to
// replace a file by name lets the replace through).
func clientWords(msg string) string {
	return strings.NewReplacer(
		" (a patch cannot: update the file with @@ hunks instead of *** Add File:, or use write with overwrite: true)", " (update the file with @@ hunks instead of *** Add File:)",
		" (a patch cannot: use write with overwrite: true)", "",
		"edit it in place (edit / patch)", "edit it in place (replace the parts that change)",
		"or pass overwrite: true if replacing it is really what the user asked for",
		"or, if replacing it whole is really what the user wants, ask them to say so in their next message (\"rewrite <file>\"): that lifts this guard",
	).Replace(msg)
}

// cannot is the answer when stet cannot decide: a change is refused with
// the reason and the way out, anything else passes with a warning.
func cannot(ev Event, err error) Answer {
	if ev.Kind == BeforeChange {
		return Answer{Deny: fmt.Sprintf("refused: stet cannot check this change, so it must not run: %v; tell the user: run `stet verify --all` and fix what it names (or make the state directory writable), then try again", err)}
	}
	return Answer{Warn: fmt.Sprintf("stet could not check this %s: %v", ev.Name, err)}
}

// absIn makes p absolute from cwd, as the client resolves it.
func absIn(cwd, p string) string {
	if p == "" || cwd == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(cwd, p)
}

// changeIn makes the paths of a change absolute from cwd. A patch is
// wrapped in a "cd DIR && apply_patch" heredoc, which stet's patch reader
// resolves its relative paths in.
func changeIn(cwd string, c any) any {
	switch a := c.(type) {
	case stet.EditArgs:
		a.Path = absIn(cwd, a.Path)
		return a
	case stet.WriteArgs:
		a.Path = absIn(cwd, a.Path)
		return a
	case stet.ClientRewrite:
		a.Path = absIn(cwd, a.Path)
		return a
	case stet.PatchArgs:
		body := strings.TrimSpace(a.Patch)
		if cwd == "" || strings.ContainsAny(cwd, "'\n") || !strings.HasPrefix(body, "*** Begin Patch") {
			return a
		}
		end := "STET_PATCH_END"
		for strings.Contains(a.Patch, end) {
			end += "_"
		}
		a.Patch = fmt.Sprintf("cd '%s' && apply_patch <<'%s'\n%s\n%s\n", cwd, end, body, end)
		return a
	}
	return c
}

// updated lists the files a change updates or deletes in place (not
// those it adds).
func updated(c any) []string {
	a, ok := c.(stet.PatchArgs)
	if !ok {
		return nil
	}
	paths, err := stet.PatchPaths(a.Patch)
	if err != nil {
		return nil
	}
	return paths
}

// object decodes in as one JSON object.
func object(in []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(in, &m); err != nil {
		return nil, fmt.Errorf("the event is not a JSON object: %w", err)
	}
	if m == nil {
		return nil, errors.New("the event is not a JSON object")
	}
	return m, nil
}
