package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stet-dev/stet"
)

// step is one line a scripted raw client sends, and what it expects.
type step struct {
	line string
	// answered: the line is a call that gets an answer (not a
	// notification, nor a line the transport drops).
	answered bool
	// fast: the stdio fast path answers it (checked on the fast run).
	fast bool
}

// call is a step that the fast path answers.
func fastCall(line string) step { return step{line: line, answered: true, fast: true} }

// slowCall is a step that go-sdk (or the transport's error replies)
// answers.
func slowCall(line string) step { return step{line: line, answered: true} }

func note(line string) step { return step{line: line} }

// callLine is a tools/call line with id, tool and arguments (any JSON).
func callLine(id any, tool string, args any, meta map[string]any) string {
	params := map[string]any{"name": tool}
	if args != nil {
		params["arguments"] = args
	}
	if meta != nil {
		params["_meta"] = meta
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// scriptCase is a script run twice, over the fast path and through go-sdk
// alone, on two identical fixtures.
type scriptCase struct {
	name     string
	files    map[string]string
	opts     stet.Options
	srv      Options
	maxReply int                       // 0: the default
	init     string                    // the initialize line; "" for the default
	roots    func(f *fixture) []string // answers to roots/list, as URIs
	steps    func(f *fixture) []step
	want     map[int]string // answer index -> a substring it must have
}

const initLine = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// run serves a fresh fixture and returns the answer lines of the script's
// steps, normalized.
func (sc scriptCase) run(t *testing.T, general bool) []string {
	t.Helper()
	f := newFixture(t, sc.files, sc.opts)
	o := sc.srv
	o.Version = "test"
	if o.Session == "" {
		o.Session = "s1"
	}
	srv := New(f.ws, o)
	if sc.maxReply > 0 {
		srv.maxReply = sc.maxReply
	}
	lt := &lineTransport{general: general}
	c := startTransport(t, srv, lt)
	init := sc.init
	if init == "" {
		init = initLine
	}
	c.send(init)
	c.recv()
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if !general {
		waitFastPath(lt)
	}
	var roots []string
	if sc.roots != nil {
		roots = sc.roots(f)
	}
	var out []string
	for i, st := range sc.steps(f) {
		var before int64
		if !general {
			before = lt.conn.served.Load()
		}
		c.send(st.line)
		if st.answered {
			out = append(out, string(f.normalize(c.recvLine(roots))))
		}
		if !general && st.answered {
			if fast := lt.conn.served.Load() > before; fast != st.fast {
				t.Errorf("step %d (%.120s): fast path took it: %v, want %v", i, st.line, fast, st.fast)
			}
		}
	}
	return out
}

// TestFastPathMatchesGoSDK runs the same calls over the stdio fast path
// and through go-sdk alone and requires the same answer lines, byte for
// byte (after normalizing temporary paths and ids): reads (small, large,
// windowed, with characters JSON escapes), changes with their diffs,
// refusals, bad arguments, _meta, the stall counter, the response bound,
// protocol versions, roots, and lines the fast path leaves to go-sdk.
func TestFastPathMatchesGoSDK(t *testing.T) {
	big := goLikeText(200 << 10)
	mid := goLikeText(20 << 10)
	odd := "<a href=\"x\">&amp;</a> \u2028 \u2029 tab\there \x1b[0m caf\u00e9 \u2603 \U0001F600 back\\slash \"q\"\n"
	files := map[string]string{
		"a.txt": "alpha\nbeta\n", "big.go": big, "mid.txt": mid, "odd.txt": odd,
		"data.csv": "a,b\n1,2\n", "sub/c.txt": "c\n",
	}
	opts := stet.Options{MaxReadBytes: 1 << 20}
	read := func(id any, p string) step { return fastCall(callLine(id, "read", map[string]any{"path": p}, nil)) }
	cases := []scriptCase{
		{name: "calls", files: files, opts: opts, steps: func(f *fixture) []step {
			return []step{
				read(1, "a.txt"),
				read(2, "big.go"),
				fastCall(callLine(3, "read", map[string]any{"path": "big.go", "offset": 100, "limit": 50}, nil)),
				read(4, "odd.txt"),
				read(5, "nope.txt"),
				fastCall(callLine(6, "read", map[string]any{"path": "a.txt", "ofset": 2}, nil)),
				fastCall(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read","arguments":"a.txt"}}`),
				fastCall(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"read","arguments":null}}`),
				fastCall(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"read"}}`),
				fastCall(callLine(10, "frobnicate", map[string]any{}, nil)),
				fastCall(callLine(11, "edit", map[string]any{"path": "a.txt", "old_string": "beta", "new_string": "<b>&</b>"}, nil)),
				read(12, "mid.txt"),
				fastCall(callLine(13, "write", map[string]any{"path": "mid.txt", "content": strings.ReplaceAll(mid, "padding", "PADDING"), "overwrite": true}, nil)),
				fastCall(callLine(14, "edit", map[string]any{"path": "mid.txt", "old_string": "PADDING", "new_string": "x", "replace_all": true}, nil)),
				fastCall(callLine(15, "list", map[string]any{}, nil)),
				fastCall(callLine(16, "grep", map[string]any{"pattern": "caf"}, nil)),
				fastCall(callLine(17, "find", map[string]any{"pattern": "*.txt"}, nil)),
				fastCall(callLine(18, "read", map[string]any{"path": "a.txt"}, map[string]any{metaSession: "other"})),
				fastCall(callLine(19, "read", map[string]any{"path": "data.csv"}, map[string]any{metaRequest: "Sum data.csv.", metaInputs: []string{"data.csv"}})),
				fastCall(callLine(20, "write", map[string]any{"path": "data.csv", "content": "x\n", "overwrite": true}, map[string]any{metaRequest: "Sum data.csv.", metaInputs: []string{"data.csv"}})),
				fastCall(callLine(21, "read", map[string]any{"path": "a.txt"}, map[string]any{metaInputs: "a.txt"})),
				fastCall(callLine(22, "read", map[string]any{"path": "a.txt"}, map[string]any{metaSession: ""})),
				fastCall(callLine("str-id", "read", map[string]any{"path": "a.txt"}, nil)),
				fastCall(callLine("q\"<id>", "read", map[string]any{"path": "a.txt"}, nil)),
				fastCall(callLine(-7, "read", map[string]any{"path": "a.txt"}, nil)),
				fastCall(callLine(strings.Repeat("long-id-", 10), "read", map[string]any{"path": "big.go"}, nil)), // no headroom for the envelope
				fastCall(`  {"params":{"arguments":{"path":"a.txt"},"name":"read","_meta":null},"method":"tools/call","id":23,"jsonrpc":"2.0"}  `),
				// Lines the fast path leaves to go-sdk.
				slowCall(`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"read","arguments":{"path":"a.txt"}}}`),
				slowCall(`{"jsonrpc":"2.0","id":123456789012345678,"method":"tools/call","params":{"name":"read","arguments":{"path":"a.txt"}}}`),
				slowCall(`{"jsonrpc":"2.0","id":24,"method":"tools/call","params":{"name":"list","name":"read","arguments":{"path":"a.txt"}}}`),
				slowCall(`{"jsonrpc":"2.0","id":25,"method":"tools/call","params":{"Name":"read","arguments":{"path":"a.txt"}}}`),
				slowCall(`{"jsonrpc":"2.0","id":26,"method":"tools/call","params":{"name":"read","arguments":{"path":"a.txt"}},"extra":1}`),
				slowCall(`{"jsonrpc":"2.0","id":27,"method":"tools/call","params":{"name":"read","arguments":{"path":"a.txt"},"_meta":7}}`),
				// An escape in a value is read as go-sdk reads it.
				fastCall(`{"jsonrpc":"2.0","id":28,"method":"tools/call","params":{"name":"r\u0065ad","arguments":{"path":"a.txt"}}}`),
				slowCall(`{"jsonrpc":"2.0","id":29,"method":"tools/call","params":{"name":"read","arguments":{"path":"a` + "\x01" + `.txt"}}}`),
				slowCall(`{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"read","arguments":{"path":"a\q.txt"}}}`),
				slowCall(`{"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"name":"read","arguments":{"path":"` + "a\xff.txt" + `"}}}`),
				slowCall(`{"jsonrpc":"2.0","id":32,"method":"tools/call","params":{"name":"read","arguments":{"path":"a.txt","x":01}}}`),
				slowCall(`{"jsonrpc":"2.0","id":33,"method":"tools/call","params":{"name":"read","arguments":{"path":"a.txt"}}} x`),
				slowCall(`{"jsonrpc":"2.0","id":34,"method":"ping"}`),
				read(35, "a.txt"),
			}
		}},
		{name: "stall", files: files, opts: opts, srv: Options{StallSteps: 2},
			want: map[int]string{1: `\n\nstet: `, 4: `"refused":"stalled"`}, steps: func(f *fixture) []step {
				return []step{
					read(1, "a.txt"),
					read(2, "big.go"), // the notice after the shared frame
					fastCall(callLine(3, "edit", map[string]any{"path": "a.txt", "old_string": "zzz", "new_string": "y"}, nil)),
					read(4, "a.txt"),
					read(5, "big.go"),
					fastCall(callLine(6, "edit", map[string]any{"path": "a.txt", "old_string": "beta", "new_string": "b"}, nil)),
					read(7, "a.txt"),
					fastCall(callLine(8, "read", map[string]any{"path": "a.txt"}, map[string]any{metaRequest: "The test FAILS, fix it."})),
				}
			}},
		{name: "bound", files: files, opts: opts, maxReply: 16 << 10,
			// A read too large for one answer comes back as the first window
			// that fits; a landed change too large keeps its receipt, not its diff.
			want: map[int]string{0: `; next: offset `, 7: `diff omitted`}, steps: func(f *fixture) []step {
				window := func(id, offset int) step {
					return fastCall(callLine(id, "read", map[string]any{"path": "mid.txt", "offset": offset, "limit": 50}, nil))
				}
				return []step{
					read(1, "big.go"),
					fastCall(callLine(2, "read", map[string]any{"path": "big.go", "limit": 10}, nil)),
					window(3, 1), window(4, 51), window(5, 101), window(6, 151), window(7, 201),
					fastCall(callLine(8, "write", map[string]any{"path": "mid.txt", "content": strings.ToUpper(mid), "overwrite": true}, nil)),
				}
			}},
		{name: "protocol-2026", files: files, opts: opts,
			init: `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
			want: map[int]string{0: `,"resultType":"complete"}}`, 1: `,"resultType":"complete"}}`},
			steps: func(f *fixture) []step {
				return []step{read(1, "a.txt"), read(2, "big.go"), read(3, "nope.txt")}
			}},
		{name: "per-request-protocol", files: files, opts: opts,
			want: map[int]string{1: `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"stet"`, 3: `"error"`},
			steps: func(f *fixture) []step {
				meta := map[string]any{
					"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
					"io.modelcontextprotocol/clientCapabilities": map[string]any{},
					"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "0"},
				}
				bad := map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": 5}
				return []step{
					slowCall(callLine(1, "read", map[string]any{"path": "a.txt"}, meta)), // go-sdk checks the keys once
					fastCall(callLine(2, "read", map[string]any{"path": "a.txt"}, meta)),
					fastCall(callLine(3, "read", map[string]any{"path": "big.go"}, meta)),
					slowCall(callLine(4, "read", map[string]any{"path": "a.txt"}, bad)),
					slowCall(callLine(5, "read", map[string]any{"path": "a.txt"}, bad)),
					read(6, "a.txt"),
				}
			}},
		{name: "roots", files: files, opts: opts,
			init:  `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"raw","version":"0"}}}`,
			roots: func(f *fixture) []string { return []string{fileURI(f.path("sub"))} },
			want:  map[int]string{0: `00001|c`, 1: `"refused":"outside"`, 2: `"refused":"outside"`, 3: `"refused":"outside"`},
			steps: func(f *fixture) []step {
				return []step{
					read(1, "sub/c.txt"),
					read(2, "a.txt"),
					fastCall(callLine(3, "list", map[string]any{}, nil)),
					note(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`),
					read(4, "a.txt"),
				}
			}},
	}
	for _, sc := range cases {
		t.Run(sc.name, func(t *testing.T) {
			fast := sc.run(t, false)
			general := sc.run(t, true)
			if len(fast) != len(general) {
				t.Fatalf("%d answers over the fast path, %d through go-sdk", len(fast), len(general))
			}
			for i := range fast {
				if fast[i] != general[i] {
					t.Errorf("answer %d differs:\nfast path: %.600s\ngo-sdk:    %.600s", i, fast[i], general[i])
				}
			}
			for i, w := range sc.want {
				if !strings.Contains(fast[i], w) {
					t.Errorf("answer %d = %.600s, want it to contain %s", i, fast[i], w)
				}
			}
		})
	}
}

// TestFastPathCancel: a call cancelled by notifications/cancelled gets the
// error go-sdk gives it, and its id can be used again.
func TestFastPathCancel(t *testing.T) {
	var lines [2]string
	for i, general := range []bool{false, true} {
		entered := make(chan string, 1)
		release := make(chan struct{})
		f := newFixture(t, nil, stet.Options{
			Hooks: stet.Hooks{BeforeReadback: func(p string) {
				entered <- p
				<-release
			}},
		})
		lt := &lineTransport{general: general}
		c := startTransport(t, New(f.ws, Options{}), lt)
		c.initialize()
		waitFastPath(lt)
		c.send(callLine(1, "list", map[string]any{}, nil))
		c.wantResult("1")
		c.send(callLine(2, "write", map[string]any{"path": "slow.txt", "content": "slow\n"}, nil))
		<-entered
		c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"test"}}`)
		lines[i] = string(c.recvLine(nil))
		close(release)
		// The id is free again: over the fast path as soon as the answer
		// is read; go-sdk frees it just after it writes the answer, so
		// there the id may still be taken for a moment.
		for try := 0; ; try++ {
			c.send(callLine(2, "read", map[string]any{"path": "slow.txt"}, nil))
			m := c.recv()
			if general && try < 100 && m.Error != nil && strings.Contains(m.Error.Message, "already in use") {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			if m.Error != nil || string(m.ID) != "2" {
				t.Fatalf("general=%v: got id %s error %+v, want a result for id 2", general, m.ID, m.Error)
			}
			break
		}
		if !general && lt.conn.served.Load() != 3 {
			t.Errorf("fast path took %d calls, want 3", lt.conn.served.Load())
		}
	}
	if lines[0] != lines[1] || !strings.Contains(lines[0], `"error":{"code":0,"message":"context canceled"}`) {
		t.Errorf("cancelled call answered\nover the fast path: %s\nthrough go-sdk:     %s", lines[0], lines[1])
	}
}

// TestFastPathDuplicateID: a call whose id is already in flight is
// refused, as go-sdk refuses it, and the first call still gets its answer.
func TestFastPathDuplicateID(t *testing.T) {
	entered := make(chan string, 1)
	release := make(chan struct{})
	f := newFixture(t, nil, stet.Options{
		Hooks: stet.Hooks{BeforeReadback: func(p string) {
			entered <- p
			<-release
		}},
	})
	lt := &lineTransport{}
	c := startTransport(t, New(f.ws, Options{}), lt)
	c.initialize()
	waitFastPath(lt)
	c.send(callLine(1, "list", map[string]any{}, nil))
	c.wantResult("1")
	c.send(callLine(2, "write", map[string]any{"path": "slow.txt", "content": "slow\n"}, nil))
	<-entered
	c.send(callLine(2, "list", map[string]any{}, nil))
	c.wantError("null", -32600, "already in use")
	c.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`) // through go-sdk
	c.wantError("null", -32600, "already in use")
	close(release)
	c.wantResult("2")
}

// TestCallToolResult: the result a registered tool handler returns (the
// go-sdk path that route normally pre-empts) carries what the encoded
// result carries.
func TestCallToolResult(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "x\n"}, stet.Options{})
	srv := New(f.ws, Options{})
	out, err := srv.toolHandler(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "read", Arguments: json.RawMessage(`{"path":"a.txt"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	tc, ok := out.Content[0].(*mcp.TextContent)
	sc, _ := out.StructuredContent.(map[string]any)
	if len(out.Content) != 1 || !ok || !strings.HasPrefix(tc.Text, "00001|x") || out.IsError || sc["frame"] != tc.Text {
		t.Fatalf("read through the tool handler = %+v", out)
	}
	out, err = srv.toolHandler(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "read", Arguments: json.RawMessage(`{"path":"nope"}`)}})
	if err != nil || !out.IsError {
		t.Fatalf("refusal through the tool handler = %+v, %v", out, err)
	}
}

// recvLine returns the next answer line (not a request or notification
// of the server's), answering roots/list requests with roots on the way.
func (c *rawClient) recvLine(roots []string) []byte {
	c.t.Helper()
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				c.t.Fatal("the server closed its output")
			}
			var m message
			if err := json.Unmarshal(line, &m); err != nil {
				c.t.Fatalf("the server wrote a line that is not JSON: %q", line)
			}
			if m.Method == "roots/list" {
				rs := make([]map[string]string, 0, len(roots))
				for _, r := range roots {
					rs = append(rs, map[string]string{"uri": r})
				}
				b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"roots": rs}})
				c.send(string(b))
				continue
			}
			if m.Method != "" {
				continue
			}
			return bytes.TrimSuffix(line, []byte("\n"))
		case <-time.After(10 * time.Second):
			c.t.Fatal("no answer from the server within 10s")
		}
	}
}

// TestAppendEscaped: the escaper writes what encoding/json writes.
func TestAppendEscaped(t *testing.T) {
	for _, s := range []string{"", "plain", "a\"b\\c\n\r\t\b\f\x00\x1f\x7f", "<>&", "\u2028\u2029", "caf\xe9", "\xe2\x80", "\xe2\x80\xa8x", "\U0001F600", strings.Repeat("0123456789abcdef", 5) + "\"", goLikeText(3000)} {
		if got, want := string(appendEscaped(nil, s)), jsonInside(t, s); got != want {
			t.Errorf("appendEscaped(%q) = %s, want %s", s, got, want)
		}
	}
}

// jsonInside is s as encoding/json writes it without HTML escaping, less
// the quotes.
func jsonInside(t testing.TB, s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

func FuzzAppendEscaped(f *testing.F) {
	f.Add("a\"b\\c\n\u2028\xff<&>")
	f.Add("\xe2\x80\xa8\xe2\x80")
	f.Add(strings.Repeat("x", 17) + "\x01")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendEscaped(nil, s)), jsonInside(t, s); got != want {
			t.Fatalf("appendEscaped(%q) = %s, want %s", s, got, want)
		}
	})
}

// FuzzEncodeShared: a result whose text and structured content share a
// string encodes to the bytes of encoding it without sharing.
func FuzzEncodeShared(f *testing.F) {
	f.Add(strings.Repeat("ab\"\n", 300), "\nnote: x", "", true)
	f.Add(strings.Repeat("\xe2\x80", 600), "\xa8", "stet: notice", false)
	f.Add(strings.Repeat("é", 600)+"\n\n", "msg\n\n", "", false)
	f.Fuzz(func(t *testing.T, big, extra, notice string, isRead bool) {
		var structured any
		var text string
		if isRead {
			structured = &stet.ReadResult{Path: "p", Frame: big}
			text = big + extra
		} else {
			structured = &stet.MutationResult{Message: extra, Diff: big}
			text = stet.Text(structured)
		}
		got, err := encodeResult(text, notice, structured, true, false)
		if err != nil {
			t.Fatal(err)
		}
		want := plainEncoding(t, text, notice, structured)
		if string(got[headroom:]) != want {
			t.Fatalf("shared encoding\n%q\nwant\n%q", got[headroom:], want)
		}
	})
}

// plainEncoding is the tool result JSON encoding/json gives.
func plainEncoding(t testing.TB, text, notice string, structured any) string {
	if notice != "" {
		text += "\n\n" + notice
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Structured any `json:"structuredContent"`
	}{Content: []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{{"text", text}}, Structured: structured}); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// TestEncodeShares: a large read's frame and a large diff are escaped once
// and still encode as encoding/json would.
func TestEncodeShares(t *testing.T) {
	frame := goLikeText(8 << 10)
	for _, tc := range []struct {
		structured any
		text       string
		notice     string
	}{
		{&stet.ReadResult{Path: "a.go", Frame: frame, Notes: []string{"n"}}, frame + "\nnote: n", ""},
		{&stet.ReadResult{Path: "a.go", Frame: frame}, frame, "stet: notice"},
		{&stet.MutationResult{Message: "edited", Diff: frame + "\n\n"}, "", ""},
		{&stet.PatchResult{Message: "patched", Diff: frame}, "", ""},
	} {
		text := tc.text
		if text == "" {
			text = stet.Text(tc.structured)
		}
		if _, ok := shareOf(tc.structured, text); !ok {
			t.Errorf("%T: nothing shared", tc.structured)
		}
		got, err := encodeResult(text, tc.notice, tc.structured, true, false)
		if err != nil {
			t.Fatal(err)
		}
		if want := plainEncoding(t, text, tc.notice, tc.structured); string(got[headroom:]) != want {
			t.Errorf("%T: encoding differs", tc.structured)
		}
	}
}

// TestParseEnvelope: the fast path reads exactly the lines it should.
func TestParseEnvelope(t *testing.T) {
	for line, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`:          true,
		` {"method":"x","jsonrpc":"2.0"} `:                                    true,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":[1,2.5e3,-0,true]}`:    true,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":"\u00e9\ud83d\ude00"}`: true,
		`{"jsonrpc":"1.0","id":1,"method":"x"}`:                               false,
		`{"jsonrpc":"2.0","id":1}`:                                            false,
		`{"jsonrpc":"2.0","id":1,"method":7}`:                                 false,
		`{"jsonrpc":"2.0","id":1,"method":"x","result":{}}`:                   false,
		`{"jsonrpc":"2.0","jsonrpc":"2.0","method":"x"}`:                      false,
		`{"jsonrpc":"2.0","m\u0065thod":"x"}`:                                 false,
		`{"jsonrpc":"2.0","method":"x","params":{"a":1,}}`:                    false,
		`{"jsonrpc":"2.0","method":"x","params":[01]}`:                        false,
		`{"jsonrpc":"2.0","method":"x","params":"` + "\t" + `"}`:              false,
		`{"jsonrpc":"2.0","method":"x","params":"\x"}`:                        false,
		`{"jsonrpc":"2.0","method":"x","params":"\u12"}`:                      false,
		`{"jsonrpc":"2.0","method":"x","params":"` + "\xc3" + `"}`:            false,
		`{"jsonrpc":"2.0","method":"x","params":` + strings.Repeat("[", maxNesting+2) + strings.Repeat("]", maxNesting+2) + `}`: false,
		`{"jsonrpc":"2.0","method":"x"}{}`: false,
		`{"jsonrpc":"2.0","method":"x"`:    false,
	} {
		if _, got := parseEnvelope([]byte(line)); got != want {
			t.Errorf("parseEnvelope(%s) = %v, want %v", line, got, want)
		}
	}
}

// FuzzParseEnvelope: what the fast path accepts is valid JSON, valid UTF-8,
// and has the members encoding/json finds in it.
func FuzzParseEnvelope(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"path":"a\"b"}}}`)
	f.Add(`{"jsonrpc":"2.0","id":"x","method":"notifications/cancelled","params":{"requestId":"x"}}`)
	f.Add(`{"jsonrpc":"2.0","method":"x","params":[1,{"a":[null,false,"\u00e9"]}]}`)
	f.Add(`{"jsonrpc":"2.0","method":"x","params":"\ud800"}`)
	f.Fuzz(func(t *testing.T, line string) {
		e, ok := parseEnvelope([]byte(line))
		if !ok {
			return
		}
		if !json.Valid([]byte(line)) || !utf8.ValidString(line) {
			t.Fatalf("accepted %q, which is not valid JSON in UTF-8", line)
		}
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  json.RawMessage `json:"method"`
			Params  json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("accepted %q: %v", line, err)
		}
		if m.JSONRPC != "2.0" || !bytes.Equal(m.ID, e.id) || !bytes.Equal(m.Method, e.method) || !bytes.Equal(m.Params, e.params) {
			t.Fatalf("accepted %q as id %s method %s params %s", line, e.id, e.method, e.params)
		}
		if p, ok := parseCallParams(e.call); ok {
			var q struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(e.params, &q); err != nil || q.Name != p.name {
				t.Fatalf("params %s read as name %q", e.params, p.name)
			}
		}
		if e.id != nil {
			if id, idJSON, ok := parseID(e.id); ok {
				if !id.IsValid() || !json.Valid(idJSON) {
					t.Fatalf("id %s read as %v %s", e.id, id, idJSON)
				}
			}
		}
	})
}

// BenchmarkEncodeRead times encoding a 1 MiB read's result.
func BenchmarkEncodeRead(b *testing.B) {
	frame := goLikeText(1 << 20)
	res := &stet.ReadResult{Path: "a.go", Frame: frame}
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if _, err := encodeResult(frame, "", res, true, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseWriteCall times reading the envelope of a 1 MiB write.
func BenchmarkParseWriteCall(b *testing.B) {
	line := []byte(callLine(1, "write", map[string]any{"path": "a.go", "content": goLikeText(1 << 20), "overwrite": true}, nil))
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		e, ok := parseEnvelope(line)
		if !ok {
			b.Fatal("not parsed")
		}
		if _, ok := parseCallParams(e.call); !ok {
			b.Fatal("params not parsed")
		}
	}
}
