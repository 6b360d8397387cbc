package stet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/tools"
)

// Output is a tool's answer in the two forms every surface shows: the
// structured result (the JSON of SPEC section 2) and the text a model reads
// (the frame, the message with the diff, or the refusal's message).
type Output struct {
	Structured any    // *ReadResult, *MutationResult, ..., or *Refusal
	Text       string // what a model reads
	Refused    *Refusal
}

// Call runs the tool named name with JSON arguments, as the MCP server and
// the CLI's call command do. Arguments are checked strictly (unknown keys,
// wrong types: an invalid refusal). A refusal comes back as an Output with
// Refused set and a nil error; the error is for what broke.
func (s *Session) Call(ctx context.Context, name string, raw json.RawMessage) (Output, error) {
	return s.CallWithin(ctx, name, raw, 0)
}

// CallWithin is Call with a byte bound for a read's window smaller than the
// workspace's (see ReadWithin); 0 means the workspace's.
func (s *Session) CallWithin(ctx context.Context, name string, raw json.RawMessage, maxReadBytes int) (Output, error) {
	return s.CallFit(ctx, name, raw, func(Output) int { return 0 }, maxReadBytes)
}

// CallFit is Call for a surface whose answers must fit a size. For a read,
// fit sees each candidate answer before the session records it as seen; it
// returns 0 to accept it, or a smaller byte bound for the window to try
// instead (at most a few times). The session records only the answer
// accepted, so nothing counts as seen that the model was not shown. Other
// tools ignore fit.
func (s *Session) CallFit(ctx context.Context, name string, raw json.RawMessage, fit func(Output) int, maxReadBytes int) (Output, error) {
	mutating, ok := tools.Mutating(name)
	if !ok {
		r := refuse(KindInvalid, "", "there is no tool %q; the tools are %s", name, strings.Join(tools.Names(false), ", "))
		return refusalOutput(name, r), nil
	}
	if mutating && s.ws.opts.Effects == policy.ReadOnly {
		r := refuse(KindReadOnly, "", "%s is not available: this workspace is read-only (--effects read-only); report the change you would make instead", name)
		return refusalOutput(name, r), nil
	}
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	args, err := tools.Decode(name, raw)
	if err != nil {
		r := &Refusal{Kind: KindInvalid, Tool: name, Message: "refused: " + err.Error(), Err: err}
		var ae *tools.ArgError
		if errors.As(err, &ae) && ae.Suggest != "" {
			r.with("suggest", ae.Suggest)
		}
		return refusalOutput(name, r), nil
	}
	var res any
	if a, ok := args.(*ReadArgs); ok {
		res, err = s.readFit(ctx, *a, fit, maxReadBytes)
	} else {
		res, err = s.Do(ctx, args)
	}
	if err != nil {
		if r, ok := AsRefusal(err); ok {
			return refusalOutput(name, r), nil
		}
		return Output{}, err
	}
	return Output{Structured: res, Text: Text(res)}, nil
}

// readFit reads, lets fit shrink the window, and records only the answer
// it accepts.
func (s *Session) readFit(ctx context.Context, a ReadArgs, fit func(Output) int, maxBytes int) (*ReadResult, error) {
	for try := 0; ; try++ {
		res, observe, err := s.prepareRead(ctx, a, maxBytes)
		if err != nil {
			return nil, err
		}
		smaller := fit(Output{Structured: res, Text: Text(res)})
		if smaller <= 0 || try == 4 {
			if err := observe(); err != nil {
				return nil, err
			}
			return res, nil
		}
		maxBytes = smaller
	}
}

func refusalOutput(tool string, r *Refusal) Output {
	if r.Tool == "" {
		r.Tool = tool
	}
	return Output{Structured: r, Text: r.Message, Refused: r}
}

// Do runs one tool given its typed arguments (a *ReadArgs, *EditArgs, ...
// or the value itself) and returns its typed result.
func (s *Session) Do(ctx context.Context, args any) (any, error) {
	switch a := args.(type) {
	case *ReadArgs:
		return s.Read(ctx, *a)
	case ReadArgs:
		return s.Read(ctx, a)
	case *EditArgs:
		return s.Edit(ctx, *a)
	case EditArgs:
		return s.Edit(ctx, a)
	case *WriteArgs:
		return s.Write(ctx, *a)
	case WriteArgs:
		return s.Write(ctx, a)
	case *PatchArgs:
		return s.Patch(ctx, *a)
	case PatchArgs:
		return s.Patch(ctx, a)
	case *ListArgs:
		return s.List(ctx, *a)
	case ListArgs:
		return s.List(ctx, a)
	case *FindArgs:
		return s.Find(ctx, *a)
	case FindArgs:
		return s.Find(ctx, a)
	case *GrepArgs:
		return s.Grep(ctx, *a)
	case GrepArgs:
		return s.Grep(ctx, a)
	case *MkdirArgs:
		return s.Mkdir(ctx, *a)
	case MkdirArgs:
		return s.Mkdir(ctx, a)
	case *MoveArgs:
		return s.Move(ctx, *a)
	case MoveArgs:
		return s.Move(ctx, a)
	case *DeleteArgs:
		return s.Delete(ctx, *a)
	case DeleteArgs:
		return s.Delete(ctx, a)
	case *UndoArgs:
		return s.Undo(ctx, *a)
	case UndoArgs:
		return s.Undo(ctx, a)
	}
	return nil, fmt.Errorf("stet: no tool takes %T", args)
}

// Text renders a tool result as the text a model reads.
func Text(res any) string {
	switch r := res.(type) {
	case *ReadResult:
		if len(r.Notes) == 0 {
			return r.Frame
		}
		return r.Frame + "\nnote: " + strings.Join(r.Notes, "\nnote: ")
	case *MutationResult:
		return withDiff(r.Message, r.Diff)
	case *PatchResult:
		return withDiff(r.Message, r.Diff)
	case *MkdirResult:
		return r.Message
	case *ListResult:
		var b strings.Builder
		for _, e := range r.Entries {
			switch e.Type {
			case "dir":
				fmt.Fprintf(&b, "%s/\n", e.Name)
			case "file":
				fmt.Fprintf(&b, "%s  (%s bytes)\n", e.Name, policy.Thousands(int(e.Size)))
			case "symlink":
				fmt.Fprintf(&b, "%s@\n", e.Name)
			default:
				fmt.Fprintf(&b, "%s  (%s)\n", e.Name, e.Type)
			}
		}
		switch {
		case r.Truncated:
			fmt.Fprintf(&b, "(first %d entries; more exist: raise limit or list a subdirectory)", len(r.Entries))
		case len(r.Entries) == 0:
			fmt.Fprintf(&b, "(%s is empty)", r.Path)
		default:
			fmt.Fprintf(&b, "(%s)", plural(len(r.Entries), "entry"))
		}
		return strings.ReplaceAll(b.String(), "entrys", "entries")
	case *FindResult:
		var b strings.Builder
		for _, p := range r.Paths {
			b.WriteString(p)
			b.WriteByte('\n')
		}
		switch {
		case r.Truncated:
			fmt.Fprintf(&b, "(first %d paths; more match: raise limit or narrow the pattern)", len(r.Paths))
		case len(r.Paths) == 0:
			b.WriteString("(no path matches)")
		default:
			fmt.Fprintf(&b, "(%s)", plural(len(r.Paths), "path"))
		}
		return b.String()
	case *GrepResult:
		var b strings.Builder
		n := 0
		for _, m := range r.Matches {
			sep := ":"
			if m.Context {
				sep = "-"
			} else {
				n++
			}
			fmt.Fprintf(&b, "%s%s%d%s%s\n", m.Path, sep, m.Line, sep, m.Text)
		}
		switch {
		case r.Truncated:
			fmt.Fprintf(&b, "(first %d matches; more exist: raise limit or narrow path/glob)", n)
		case n == 0:
			b.WriteString("(no match)")
		default:
			fmt.Fprintf(&b, "(%s)", plural(n, "match"))
		}
		return strings.ReplaceAll(b.String(), "matchs", "matches")
	case *Refusal:
		return r.Message
	}
	b, _ := json.Marshal(res)
	return string(b)
}

func withDiff(msg, diff string) string {
	if diff == "" {
		return msg
	}
	return msg + "\n\n" + strings.TrimRight(diff, "\n")
}
