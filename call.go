package stet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/stet-dev/stet/internal/engine"
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
	// Changed reports whether the call altered the workspace tree: a
	// mutation that landed and changed bytes or names. A refusal, a dry
	// run, a read and a no-op (mkdir of a directory that exists, a write of
	// the bytes already there) leave it false. The review-stall counter
	// (SPEC section 8) resets only on it.
	Changed bool
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
		r := engine.Refuse(KindInvalid, "", "there is no tool %q; the tools are %s", name, strings.Join(tools.Names(false), ", "))
		return s.refused(name, r), nil
	}
	if mutating && s.e.WS.Opts.Effects == policy.ReadOnly {
		r := engine.Refuse(KindReadOnly, "", "%s is not available: this workspace is read-only (--effects read-only); report the change you would make instead", name)
		return s.refused(name, r), nil
	}
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	args, err := tools.Decode(name, raw)
	if err != nil {
		return s.refused(name, argRefusal(name, err)), nil
	}
	var res any
	if a, ok := args.(*ReadArgs); ok && a.Paths == nil {
		res, err = s.readFit(ctx, *a, fit, maxReadBytes)
	} else if ok {
		res, err = s.ReadFiles(ctx, *a)
	} else {
		res, err = s.do(ctx, args)
	}
	if err != nil {
		if r, ok := AsRefusal(err); ok {
			return s.refused(name, r), nil
		}
		return Output{}, err
	}
	return Output{Structured: res, Text: Text(res), Changed: altered(res)}, nil
}

// checkArgs applies rule 1 to a tool's typed arguments, through the checks
// package tools owns (the same Decode applies to JSON), so that the library,
// the CLI, `stet call` and MCP refuse alike and in the same words.
func checkArgs(tool string, a interface{ Validate() error }) *Refusal {
	if err := a.Validate(); err != nil {
		return argRefusal(tool, err)
	}
	return nil
}

// argRefusal is the invalid refusal for a rule-1 error of package tools.
func argRefusal(tool string, err error) *Refusal {
	r := &Refusal{Kind: KindInvalid, Tool: tool, Message: "refused: " + err.Error(), Err: err}
	var ae *tools.ArgError
	if errors.As(err, &ae) && ae.Suggest != "" {
		r.With("suggest", ae.Suggest)
	}
	return r
}

// altered reports whether a tool's result is a change that altered the
// tree: bytes or names on disk differ from before the call. Its tool's row
// says (a read-only tool's never does).
func altered(res any) bool {
	for i := range toolTable {
		if t := &toolTable[i]; t.changed != nil {
			if changed, ok := t.changed(res); ok {
				return changed
			}
		}
	}
	return false
}

func mutationChanged(r *MutationResult) bool { return receiptAltered(r.Receipt) }

// receiptAltered reports whether a receipt records a landed change of bytes
// or names (a move always changes a name).
func receiptAltered(r Receipt) bool {
	switch {
	case r.DryRun:
		return false
	case r.From != "" && r.From != r.Path:
		return true
	case r.Before == nil || r.After == nil:
		return r.Before != r.After
	}
	return r.Before.Version != r.After.Version
}

// readFit reads, lets fit shrink the window, and records only the answer
// it accepts.
func (s *Session) readFit(ctx context.Context, a ReadArgs, fit func(Output) int, maxBytes int) (*ReadResult, error) {
	if err := s.e.CatchUp(); err != nil {
		return nil, err
	}
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

// refused is the Output of a refused call, journaled for review.
func (s *Session) refused(tool string, r *Refusal) Output {
	s.noteRefusal(tool, r)
	return refusalOutput(tool, r)
}

func refusalOutput(tool string, r *Refusal) Output {
	if r.Tool == "" {
		r.Tool = tool
	}
	return Output{Structured: r, Text: engine.RefusalText(r), Refused: r}
}

// Do runs one tool given its typed arguments (a *ReadArgs, *EditArgs, ...
// or the value itself) and returns its typed result. A refusal is journaled
// for review (one record, its message bounded).
func (s *Session) Do(ctx context.Context, args any) (any, error) {
	t := toolFor(args)
	if t == nil {
		return nil, fmt.Errorf("stet: no tool takes %T", args)
	}
	res, err := t.run(s, ctx, args)
	if err != nil {
		s.noteRefusal(t.name, err)
	}
	return res, err
}

// do runs the tool that takes args, from the table of tools.
func (s *Session) do(ctx context.Context, args any) (any, error) {
	t := toolFor(args)
	if t == nil {
		return nil, fmt.Errorf("stet: no tool takes %T", args)
	}
	return t.run(s, ctx, args)
}

// Text renders a tool result as the text a model reads: with the renderer
// its tool's row of the table names (a refusal, as its message and what it
// shows). It never rewrites the user's bytes or names: words around them
// are built from the counts, and a name holding control characters (which
// could otherwise forge rows of a listing) is shown quoted and escaped, as
// strconv.Quote writes it. Structured results keep every name raw.
func Text(res any) string {
	if r, ok := res.(*Refusal); ok {
		return engine.RefusalText(r)
	}
	for i := range toolTable {
		if text, ok := toolTable[i].render(res); ok {
			return text
		}
	}
	b, _ := json.Marshal(res)
	return string(b)
}

func mutationText(r *MutationResult) string { return withDiff(r.Message, r.Diff) }

func listText(r *ListResult) string {
	var b strings.Builder
	for _, e := range r.Entries {
		name := engine.ShownName(e.Name)
		switch e.Type {
		case "dir":
			fmt.Fprintf(&b, "%s/\n", name)
		case "file":
			fmt.Fprintf(&b, "%s  (%s)\n", name, count(int(e.Size), "byte", "bytes"))
		case "symlink":
			fmt.Fprintf(&b, "%s@\n", name)
		default:
			fmt.Fprintf(&b, "%s  (%s)\n", name, e.Type)
		}
	}
	switch {
	case r.Truncated:
		fmt.Fprintf(&b, "(first %s; more exist: raise limit or list a subdirectory)", count(len(r.Entries), "entry", "entries"))
	case len(r.Entries) == 0:
		fmt.Fprintf(&b, "(%s is empty)", engine.ShownName(r.Path))
	default:
		fmt.Fprintf(&b, "(%s)", count(len(r.Entries), "entry", "entries"))
	}
	writeNotes(&b, r.Notes)
	return b.String()
}

func findText(r *FindResult) string {
	var b strings.Builder
	for _, p := range r.Paths {
		b.WriteString(engine.ShownName(p))
		b.WriteByte('\n')
	}
	switch {
	case r.Truncated:
		fmt.Fprintf(&b, "(first %s; more match: raise limit or narrow the pattern)", count(len(r.Paths), "path", "paths"))
	case len(r.Paths) == 0:
		b.WriteString("(no path matches)")
	default:
		fmt.Fprintf(&b, "(%s)", count(len(r.Paths), "path", "paths"))
	}
	writeNotes(&b, r.Notes)
	return b.String()
}

func grepText(r *GrepResult) string {
	var b strings.Builder
	n := GrepRowsText(&b, r)
	b.WriteString(GrepTrailer(r, n))
	writeNotes(&b, r.Notes)
	return b.String()
}

// writeNotes appends a "note: ..." line for each note.
func writeNotes(b *strings.Builder, notes []string) {
	for _, n := range notes {
		b.WriteString("\nnote: " + n)
	}
}

// GrepRowsText writes the rows of a grep result as text, one a line
// (`path:line:text`, `path-line-text` for context, a path alone in
// files_with_matches mode, `path:count` in count mode), and returns how
// many results it wrote (matching lines, or files).
func GrepRowsText(b *strings.Builder, r *GrepResult) int {
	out, n := AppendGrepRows(nil, r, true)
	b.Write(out)
	return n
}

// AppendGrepRows is GrepRowsText appending to dst, for a writer that
// reuses one buffer: it returns the extended buffer and how many results
// it holds. Without withPath, rows leave out the path and its separator
// (grep -h) but files_with_matches rows still show it. A path is escaped
// once for the rows of one file, not once a row.
func AppendGrepRows(dst []byte, r *GrepResult, withPath bool) ([]byte, int) {
	n := 0
	var raw, shown string // the last path and how rows show it
	name := func(p string) string {
		if p != raw || shown == "" {
			raw, shown = p, engine.ShownName(p)
		}
		return shown
	}
	for _, m := range r.Matches {
		sep := byte(':')
		if m.Context {
			sep = '-'
		} else {
			n++
		}
		if withPath {
			dst = append(dst, name(m.Path)...)
			dst = append(dst, sep)
		}
		dst = strconv.AppendInt(dst, int64(m.Line), 10)
		dst = append(dst, sep)
		dst = append(dst, m.Text...)
		dst = append(dst, '\n')
	}
	for _, p := range r.Paths {
		dst = append(dst, name(p)...)
		dst = append(dst, '\n')
		n++
	}
	for _, c := range r.Counts {
		if withPath {
			dst = append(dst, name(c.Path)...)
			dst = append(dst, ':')
		}
		dst = strconv.AppendInt(dst, int64(c.Count), 10)
		dst = append(dst, '\n')
		n++
	}
	return dst, n
}

// GrepTrailer is the last line of grep's text: how many results were
// shown (n) and whether more exist. The mode is r's: whichever of
// Matches, Paths and Counts is non-nil (content when none is).
func GrepTrailer(r *GrepResult, n int) string {
	one, many := "match", "matches"
	if r.Paths != nil || r.Counts != nil {
		one, many = "file", "files"
	}
	switch {
	case r.Truncated:
		return fmt.Sprintf("(first %s; more exist: page with offset, narrow path/glob/type, or raise limit)", count(n, one, many))
	case n == 0:
		return "(no match)"
	}
	return fmt.Sprintf("(%s)", count(n, one, many))
}

// count is n and the noun in the number n asks for: "1 entry", "2 entries".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return policy.Thousands(n) + " " + many
}

// ShowName is a file name or a session id as text for a person or a model
// shows it: as it is, or quoted and escaped when it holds a control
// character, invalid UTF-8, a line or paragraph separator, or starts with
// a double quote. Every face (the CLI's rows and messages, the review)
// prints names through it, so that a name cannot forge a row or erase
// lines on a terminal; structured results keep names raw.
func ShowName(name string) string { return engine.ShownName(name) }

func withDiff(msg, diff string) string {
	if diff == "" {
		return msg
	}
	return msg + "\n\n" + strings.TrimRight(diff, "\n")
}
