package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stet-dev/stet"
)

// maxReplyBytes bounds the JSON of one tool result. MCP clients built on
// the TypeScript SDK drop the session on a message over 10 MiB; the rest of
// the JSON-RPC envelope is small.
const maxReplyBytes = 9 << 20

// headroom is the room left in front of a toolResult's JSON, so that the
// stdio fast path can put the JSON-RPC envelope there without copying the
// result (see toolResult.line).
const headroom = 64

// toolResult is a tools/call result whose JSON is built once, by reply.
// go-sdk's own CallToolResult goes through four JSON passes over every byte
// of a large read (each Marshaler's output is re-compacted on the way up);
// this one escapes each string once, and a string the result carries twice
// (a read's frame, a change's diff) is escaped once for both places. The
// stdio fast path writes it as it is; go-sdk compacts it once more.
type toolResult struct {
	mcp.ResultBase        // _meta, which go-sdk may set (server info on new protocols)
	buf            []byte // headroom bytes, then the JSON without resultType and _meta
	complete       bool   // the client speaks a protocol with resultType (2026-07-28 or later)
}

// body is the result's JSON without resultType and _meta.
func (r *toolResult) body() []byte { return r.buf[headroom:] }

// MarshalJSON returns the CallToolResult JSON: content (one text block),
// structuredContent, isError, and resultType and _meta when set.
func (r *toolResult) MarshalJSON() ([]byte, error) {
	if len(r.Meta) == 0 && !r.complete {
		return r.body(), nil
	}
	return r.finish(slices.Clone(r.body()))
}

// finish appends resultType and _meta, when set, to b, the result's JSON
// without them.
func (r *toolResult) finish(b []byte) ([]byte, error) {
	if len(r.Meta) == 0 && !r.complete {
		return b, nil
	}
	b = b[:len(b)-1] // '}'
	if r.complete {
		b = append(b, `,"resultType":"complete"`...)
	}
	if len(r.Meta) > 0 {
		m, err := json.Marshal(r.Meta)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"_meta":`...)
		b = append(b, m...)
	}
	return append(b, '}'), nil
}

// line returns the JSON-RPC response line (with its newline) that answers
// the call id (its JSON) with r. It reuses r's buffer: r must not be used
// again.
func (r *toolResult) line(id []byte) ([]byte, error) {
	const open, mid = `{"jsonrpc":"2.0","id":`, `,"result":`
	var b []byte
	if n := len(open) + len(id) + len(mid); n <= headroom {
		b = r.buf[headroom-n:]
		copy(b, open)
		copy(b[len(open):], id)
		copy(b[len(open)+len(id):], mid)
	} else {
		b = make([]byte, 0, n+len(r.buf)+64)
		b = append(b, open...)
		b = append(b, id...)
		b = append(b, mid...)
		b = append(b, r.body()...)
	}
	b, err := r.finish(b)
	if err != nil {
		return nil, err
	}
	return append(b, '}', '\n'), nil
}

// callToolResult is r as go-sdk's type, for the path through a registered
// tool handler.
func (r *toolResult) callToolResult() (*mcp.CallToolResult, error) {
	var res mcp.CallToolResult
	if err := json.Unmarshal(r.body(), &res); err != nil {
		return nil, fmt.Errorf("mcpserver: decoding a result: %w", err)
	}
	res.Meta = r.Meta
	return &res, nil
}

// textResult is an error result with text only.
func textResult(text string) *toolResult {
	b, _ := encodeResult(text, "", nil, false, true) // text alone cannot fail
	return &toolResult{buf: b}
}

// compactText is the text of a text-only result (Options.TextResults): a
// change's message with its diff compacted (compactDiff); anything else as
// the facade words it.
func compactText(out stet.Output) string {
	var msg, diff string
	switch r := out.Structured.(type) {
	case *stet.MutationResult:
		msg, diff = r.Message, r.Diff
	case *stet.PatchResult:
		msg, diff = r.Message, r.Diff
	default:
		return out.Text
	}
	if diff == "" || out.Text != msg+"\n\n"+strings.TrimRight(diff, "\n") {
		return out.Text
	}
	return msg + "\n\n" + strings.TrimRight(compactDiff(diff), "\n")
}

// MetaResult is the _meta key of a text-only result's structured result
// (Options.TextResults).
const MetaResult = "stet/result"

// reply turns a facade Output into a tool result: the text a model reads
// (with the stall notice, if any, appended) and the structured content (the
// CLI --json shape). A refusal is a result with isError set. A result whose
// JSON would be over the size bound is shrunk (a change keeps its receipt
// and loses its diff) or refused as too_large.
func (s *Server) reply(tool string, out stet.Output, notice string) *toolResult {
	var buf []byte
	var err error
	if m, ok := out.Structured.(*refMedia); ok {
		buf, err = encodeRefMedia(m, notice)
	} else if media := mediaOf(out.Structured); media != nil {
		buf, err = encodeMedia(out.Text, notice, out.Structured, media, out.Refused != nil)
	} else {
		text := out.Text
		if s.o.TextResults {
			text = compactText(out)
		}
		buf, err = encodeResult(text, notice, out.Structured, !s.o.TextResults, out.Refused != nil)
	}
	if err != nil {
		return s.failed(tool, fmt.Errorf("encoding the result: %w", err))
	}
	r := &toolResult{buf: buf}
	if s.o.TextResults && out.Structured != nil && mediaOf(out.Structured) == nil {
		r.Meta = mcp.Meta{MetaResult: out.Structured}
	}
	if n := len(r.body()); n > s.maxReply {
		return s.shrink(tool, out, notice, n)
	}
	return r
}

// shrink answers a result too large to send. A change has already landed,
// so it is still reported, without its diff; anything else is refused.
func (s *Server) shrink(tool string, out stet.Output, notice string, size int) *toolResult {
	omitted := func(diff string) string {
		return fmt.Sprintf("(diff omitted: %s bytes, too large for one response; the receipt above records every changed region; `stet show <receipt id>` prints the diff)", thousands(len(diff)))
	}
	switch r := out.Structured.(type) {
	case *stet.MutationResult:
		if r.Diff != "" {
			c := *r
			c.Diff = ""
			return s.reply(tool, stet.Output{Structured: &c, Text: c.Message + "\n\n" + omitted(r.Diff)}, notice)
		}
	case *stet.PatchResult:
		if r.Diff != "" {
			c := *r
			c.Diff = ""
			return s.reply(tool, stet.Output{Structured: &c, Text: c.Message + "\n\n" + omitted(r.Diff)}, notice)
		}
	}
	if out.Refused == nil && out.Changed {
		// Never report a landed change as refused.
		return s.failed(tool, fmt.Errorf("the change landed, but its result (%s bytes) is too large for one response", thousands(size)))
	}
	next := "ask for less"
	switch tool {
	case "read":
		next = "read a smaller window (a lower limit, then continue at the next offset)"
	case "grep":
		next = "narrow the search (a more specific pattern, a path or glob, a lower limit or less context)"
	case "list":
		next = "list a subdirectory, or pass a lower depth or limit"
	case "find":
		next = "narrow the pattern or pass a lower limit"
	}
	ref := &stet.Refusal{
		Kind: stet.KindTooLarge, Tool: tool,
		Message: fmt.Sprintf("refused: the result of %s is %s bytes of JSON, over the %s bytes one response may carry; %s",
			tool, thousands(size), thousands(s.maxReply), next),
		Details: map[string]any{"bytes": size, "max": s.maxReply},
	}
	return s.reply(tool, refusalOutput(tool, ref), notice)
}

// failed is the result of a call that broke (not a refusal): an error the
// model can read, without Go's error text or host paths; the whole error
// goes to the log.
func (s *Server) failed(tool string, err error) *toolResult {
	s.log.Error("mcpserver: tool failed", "tool", tool, "error", err)
	var msg string
	var ve *stet.VerifyError
	switch {
	case errors.As(err, &ve):
		// Written by stet for the model: what landed and where the
		// previous content is.
		msg = "error: " + err.Error()
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		msg = fmt.Sprintf("error: %s was cancelled before it finished; read the file to see its state before you retry", tool)
	default:
		msg = fmt.Sprintf("error: %s failed: %s; report this to the user if it persists (the server log has the details)", tool, cause(err))
	}
	return textResult(msg)
}

// cause is err's text with operating-system errors reduced to their reason
// ("permission denied", "no space left on device"): their op and host
// path mean nothing to a model and must not leak.
func cause(err error) string {
	text := err.Error()
	for e := err; e != nil; e = errors.Unwrap(e) {
		var inner error
		switch x := e.(type) {
		case *fs.PathError:
			inner = x.Err
		case *os.LinkError:
			inner = x.Err
		case *os.SyscallError:
			inner = x.Err
		default:
			continue
		}
		text = strings.Replace(text, e.Error(), inner.Error(), 1)
	}
	return strings.ReplaceAll(text, "\n", "; ")
}

// thousands formats n with comma separators.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
