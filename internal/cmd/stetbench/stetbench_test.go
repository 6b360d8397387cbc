package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stet-dev/stet/frame"
)

func TestFixture(t *testing.T) {
	for _, size := range []int{1, 99, 100, 101, 150, 4 * kib, mib} {
		for _, token := range []string{"", tokenA} {
			f := fixture(size, 0, token)
			if len(f) != size {
				t.Fatalf("fixture(%d): %d bytes", size, len(f))
			}
			if f[len(f)-1] != '\n' || !utf8.Valid(f) || bytes.IndexByte(f, 0) >= 0 {
				t.Fatalf("fixture(%d): not newline-terminated UTF-8 text without NUL", size)
			}
			lines := bytes.SplitAfter(f, []byte("\n"))
			for i, l := range lines[:len(lines)-2] { // all but the last line and the empty tail
				if len(l) != lineLen {
					t.Fatalf("fixture(%d) line %d: %d bytes", size, i+1, len(l))
				}
			}
			if size < lineLen {
				continue
			}
			if !bytes.Contains(f, []byte("\t")) || bytes.Count(f[:lineLen], []byte(`"`)) < 4 || !bytes.Contains(f, []byte(`\`)) {
				t.Fatalf("fixture(%d): no tab, quotes or backslash for JSON to escape: %q", size, f[:lineLen])
			}
			n := bytes.Count(f, []byte("EDITME_"))
			switch {
			case token == "" && n != 0:
				t.Fatalf("fixture(%d) without token holds %d", size, n)
			case token != "" && size >= 4*kib:
				if n != 1 {
					t.Fatalf("fixture(%d): token %d times", size, n)
				}
				at := bytes.Index(f, []byte(token))
				if got := frame.LineOf(f, at); got != tokenLine(size) {
					t.Fatalf("fixture(%d): token on line %d, tokenLine says %d", size, got, tokenLine(size))
				}
			}
		}
	}
	if bytes.Equal(fixture(4*kib, 0, ""), fixture(4*kib, 1, "")) {
		t.Fatal("variants 0 and 1 are the same text")
	}
	// An edit is the same size and differs only in the token.
	a, b := fixture(mib, 0, tokenA), fixture(mib, 0, tokenB)
	if len(a) != len(b) || !bytes.Equal(bytes.Replace(a, []byte(tokenA), []byte(tokenB), 1), b) {
		t.Fatal("swapping the token of fixture A does not give fixture B")
	}
	if old, new := swapToken(a); old != tokenA || new != tokenB {
		t.Fatalf("swapToken(A) = %q, %q", old, new)
	}
	if old, new := swapToken(b); old != tokenB || new != tokenA {
		t.Fatalf("swapToken(B) = %q, %q", old, new)
	}
}

func TestQuantile(t *testing.T) {
	cases := []struct {
		xs     []float64
		q, out float64
	}{
		{[]float64{3, 1, 2}, 0.5, 2},
		{[]float64{4, 1, 3, 2}, 0.5, 2.5},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.9, 9},
		{[]float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 11}, 0.9, 10},
		{[]float64{5}, 0.9, 5},
	}
	for _, c := range cases {
		if got := quantile(c.xs, c.q); got != c.out {
			t.Errorf("quantile(%v, %v) = %v, want %v", c.xs, c.q, got, c.out)
		}
	}
	if !math.IsNaN(quantile(nil, 0.5)) {
		t.Error("quantile of nothing is not NaN")
	}
}

func TestParseToolResult(t *testing.T) {
	m, err := parseMessage([]byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"a\tb"},{"type":"text","text":"c"}],"structuredContent":{"x":1}}}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if string(m.ID) != "7" || m.Method != "" {
		t.Fatalf("id %s method %q", m.ID, m.Method)
	}
	r, err := parseToolResult(m)
	if err != nil || r.text() != "a\tbc" || string(r.Structured) != `{"x":1}` {
		t.Fatalf("result %+v, %v", r, err)
	}

	m, _ = parseMessage([]byte(`{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"refused: no"}],"isError":true}}`))
	if _, err := parseToolResult(m); err == nil || !strings.Contains(err.Error(), "refused: no") {
		t.Fatalf("isError result: %v", err)
	}
	m, _ = parseMessage([]byte(`{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"bad params"}}`))
	if _, err := parseToolResult(m); err == nil || !strings.Contains(err.Error(), "bad params") {
		t.Fatalf("JSON-RPC error: %v", err)
	}
	if _, err := parseMessage([]byte(`{"jsonrpc":`)); err == nil {
		t.Fatal("a torn line parsed")
	}
}

// TestRoundTrip drives the client against a scripted server: it skips a
// notification, answers a server request with method-not-found, and
// returns the response with its id.
func TestRoundTrip(t *testing.T) {
	toServer, fromClient := io.Pipe()
	fromServer, toClient := io.Pipe()
	got := make(chan []string, 1)
	go func() {
		r := bufio.NewReader(toServer)
		var seen []string
		req, _ := r.ReadString('\n')
		seen = append(seen, req)
		io.WriteString(toClient, `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`+"\n")
		io.WriteString(toClient, `{"jsonrpc":"2.0","id":"s1","method":"roots/list"}`+"\n")
		reply, _ := r.ReadString('\n')
		seen = append(seen, reply)
		io.WriteString(toClient, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}`+"\n")
		got <- seen
	}()
	c := newRPCClient(fromClient, fromServer)
	r, d, err := c.call("read", map[string]any{"path": "a <b>"})
	if err != nil {
		t.Fatal(err)
	}
	if r.text() != "ok" || d <= 0 {
		t.Fatalf("text %q, time %v", r.text(), d)
	}
	seen := <-got
	var req struct {
		ID     int64  `json:"id"`
		Method string `json:"method"`
		Params struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(seen[0]), &req); err != nil {
		t.Fatal(err)
	}
	if req.ID != 1 || req.Method != "tools/call" || req.Params.Name != "read" || req.Params.Arguments["path"] != "a <b>" {
		t.Fatalf("request %s", seen[0])
	}
	if strings.Contains(seen[0], `\u003c`) {
		t.Fatalf("request HTML-escaped: %s", seen[0])
	}
	if !strings.Contains(seen[1], `"id":"s1"`) || !strings.Contains(seen[1], "-32601") {
		t.Fatalf("server request answered with %s", seen[1])
	}
}

func TestReadLineLongerThanBuffer(t *testing.T) {
	long := strings.Repeat("x", 3<<20)
	c := newRPCClient(io.Discard, strings.NewReader(long+"\nnext\n"))
	l, err := c.readLine()
	if err != nil || len(l) != len(long)+1 {
		t.Fatalf("%d bytes, %v", len(l), err)
	}
	if l, err := c.readLine(); err != nil || string(l) != "next\n" {
		t.Fatalf("%q, %v", l, err)
	}
	if _, err := c.readLine(); err != io.EOF {
		t.Fatalf("at the end: %v", err)
	}
	c = newRPCClient(io.Discard, strings.NewReader("torn"))
	if _, err := c.readLine(); err != io.ErrUnexpectedEOF {
		t.Fatalf("torn line: %v", err)
	}
}

func TestParseVmHWM(t *testing.T) {
	status := "Name:\tstet\nVmPeak:\t  999 kB\nVmHWM:\t   12345 kB\nVmRSS:\t 100 kB\n"
	if n, err := parseVmHWM([]byte(status)); err != nil || n != 12345<<10 {
		t.Fatalf("%d, %v", n, err)
	}
	for _, bad := range []string{"VmRSS: 1 kB\n", "VmHWM: x kB\n", "VmHWM: 12 MB\n", ""} {
		if _, err := parseVmHWM([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if n, err := peakRSS(os.Getpid()); err != nil || n <= 0 {
		t.Skipf("no /proc here: %v", err)
	}
}

func TestCheckFrame(t *testing.T) {
	text := fixture(4*kib, 0, "")
	whole, _ := json.Marshal(stetRead{Lines: frame.LineCount(text), From: 1, To: frame.LineCount(text), Frame: wholeFrame(text)})
	if _, err := checkFrame(whole, text, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := checkFrame(whole, fixture(4*kib, 1, ""), 1); err == nil {
		t.Fatal("a frame of other text passed")
	}
	w, err := frame.EncodeWindow(text, frame.Options{Offset: 11, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	win, _ := json.Marshal(stetRead{Lines: frame.LineCount(text), From: 11, To: 15, Frame: w.Frame})
	if _, err := checkFrame(win, text, 11); err != nil {
		t.Fatal(err)
	}
	if _, err := checkFrame(win, text, 1); err == nil {
		t.Fatal("a window at the wrong line passed")
	}
}

func TestSplice(t *testing.T) {
	doc := splice("", "T1\n")
	if !strings.HasPrefix(doc, "# Benchmarks\n") || !strings.Contains(doc, reportMarkerOn+"\nT1\n"+reportMarkerOf) {
		t.Fatalf("new doc:\n%s", doc)
	}
	hand := "# Benchmarks\n\nprose before\n\n" + reportMarkerOn + "\nold\n" + reportMarkerOf + "\n\nprose after\n"
	doc = splice(hand, "new\n")
	if doc != "# Benchmarks\n\nprose before\n\n"+reportMarkerOn+"\nnew\n"+reportMarkerOf+"\n\nprose after\n" {
		t.Fatalf("spliced:\n%s", doc)
	}
	if splice(doc, "new\n") != doc {
		t.Fatal("splicing the same section twice changed the doc")
	}
	if doc := splice("# Other\nno markers", "x\n"); !strings.HasPrefix(doc, "# Other\nno markers\n\n"+reportMarkerOn) {
		t.Fatalf("appended:\n%s", doc)
	}
}

func TestMachineParsers(t *testing.T) {
	if got := cpuModel([]byte("processor\t: 0\nmodel name\t: AMD EPYC\nflags\t: x\n")); got != "AMD EPYC" {
		t.Errorf("cpuModel = %q", got)
	}
	if got := meminfoKB([]byte("MemTotal:       24576000 kB\nMemFree: 1 kB\n"), "MemTotal"); got != 24576000 {
		t.Errorf("meminfoKB = %d", got)
	}
	mounts := "/dev/vda / ext4 rw 0 0\ntmpfs /tmp tmpfs rw 0 0\n/dev/vdb /tmpx xfs rw 0 0\n"
	for dir, want := range map[string]string{"/tmp/a": "tmpfs", "/tmpx/b": "xfs", "/home/u": "ext4", "/tmp": "tmpfs"} {
		if fs, _ := mountOf([]byte(mounts), dir); fs != want {
			t.Errorf("mountOf(%s) = %s, want %s", dir, fs, want)
		}
	}
}

// TestTargets runs the small scenarios end to end, untimed in spirit, on
// the targets that need neither node nor a stet binary: the limit, stet's
// facade, and stet's MCP server in this process (the same client and tool
// calls as the child process gets). Each call's effect is checked by
// runScenario itself.
func TestTargets(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c := &config{work: dir, timeout: time.Minute, maxRead: 8 << 20}
	facade, err := startTarget(ctx, c, "stet-facade", "t")
	if err != nil {
		t.Fatal(err)
	}
	defer facade.close()
	if err := makeDir(filepath.Join(dir, "inproc")); err != nil {
		t.Fatal(err)
	}
	inproc, err := startInProcess(ctx, filepath.Join(dir, "inproc"), filepath.Join(dir, "inproc.state"), c.maxRead, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer inproc.close()
	limit, err := startTarget(ctx, c, "limit", "t")
	if err != nil {
		t.Fatal(err)
	}
	ts := []target{limit, facade, inproc}
	for _, name := range []string{"read_4k", "read_1m", "edit_1m", "create_4k", "replace_1m"} {
		sc, _ := scenarioNamed(name)
		broken := map[string]bool{}
		run := runScenario(ts, sc, 1, 3, broken)
		for _, r := range run.Results {
			if r.Err != "" || len(r.Samples) != 3 || r.Windowed {
				t.Errorf("%s on %s: %d samples, windowed %v, error %q", name, r.Target, len(r.Samples), r.Windowed, r.Err)
			}
		}
		if len(broken) > 0 {
			t.Errorf("%s: broken %v", name, broken)
		}
	}
	// A file larger than one window is read window by window.
	inproc.window = 15
	text := fixture(4*kib, 0, "")
	if err := writeFixture(filepath.Join(inproc.root, "big.go"), text); err != nil {
		t.Fatal(err)
	}
	if _, windowed, err := inproc.read("big.go", text); err != nil || !windowed {
		t.Fatalf("big read: windowed %v, %v", windowed, err)
	}
	// A wrong expectation is caught.
	if _, _, err := inproc.read("big.go", fixture(4*kib, 1, "")); err == nil {
		t.Fatal("a read of other bytes passed")
	}
}

func TestMarkdownGoals(t *testing.T) {
	res := func(target string, v ...float64) *result { return &result{Target: target, Samples: v} }
	rep := &report{
		N: 3, NLarge: 3, Warmup: 1, Targets: []string{"limit", "peer", "stet"},
		Latency: []*scenarioRun{
			{Scenario: "read_4k", Results: []*result{res("limit", 0.01), res("peer", 2), res("stet", 0.5)}},
			{Scenario: "edit_1m", Results: []*result{res("limit", 5), res("peer", 25), res("stet", 12)}},
			{Scenario: "replace_10m", Results: []*result{res("limit", 40), {Target: "peer", Err: "write: broken pipe"}, res("stet", 500)}},
		},
		Startup: []*startupRun{{Target: "stet", Init: []float64{5}, List: []float64{6}, FirstRead: []float64{1}, IdleRSS: []int64{10 << 20}}},
		Starts:  1,
		Memory: []*memoryRun{{Scenario: "edit_10m", Results: []*result{
			{Target: "peer", PeakRSS: 320 << 20}, {Target: "stet", PeakRSS: 100 << 20}}}},
	}
	md := rep.markdown()
	for _, want := range []string{
		"| read_4k | 0.010 (0.010) | 2.00 (2.00) | 0.500 (0.500) | 0.25× | 50.0× | yes |",
		"| edit_1m | 5.00 (5.00) | 25.0 (25.0) | 12.0 (12.0) | 0.48× | 2.40× | **no** (2.40× limit > 2×) |",
		"| replace_10m (extra) | 40.0 (40.0) | **fails** | 500 (500) | – | 12.5× | (extra; peer fails) |",
		"- peer replace_10m: write: broken pipe",
		"| stet | 5.00 (5.00) | 6.00 (6.00) | 1.00 (1.00) | 10 MiB | yes |",
		"| edit_10m | 320 MiB | 100 MiB | 0.31× | **no** |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func FuzzParseMessage(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}]}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"m"}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"notifications/message"}`))
	f.Add([]byte(`{"id":3,"result":{"isError":true,"content":null}}`))
	f.Add([]byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := parseMessage(line)
		if err != nil {
			return
		}
		r, err := parseToolResult(m)
		if err == nil && r == nil {
			t.Fatal("no result and no error")
		}
		if m.Error != nil && err == nil {
			t.Fatal("a JSON-RPC error passed as a result")
		}
	})
}

func FuzzParseVmHWM(f *testing.F) {
	f.Add([]byte("VmHWM:\t 1 kB\n"))
	f.Add([]byte("Name: x\nVmHWM: 99999999999999999999 kB\n"))
	f.Add([]byte("VmHWM: -5 kB\n"))
	f.Fuzz(func(t *testing.T, status []byte) {
		if n, err := parseVmHWM(status); err == nil && (n < 0 || n%1024 != 0) {
			t.Fatalf("VmHWM %d", n)
		}
	})
}

// wholeFrame is the whole-file frame of text, as a read of all of it shows.
func wholeFrame(text []byte) string {
	w, err := frame.EncodeWindow(text, frame.Options{Limit: frame.LineCount(text) + 1, MaxBytes: len(text)*2 + 1024})
	if err != nil || !w.Whole {
		panic(fmt.Sprintf("wholeFrame: %v", err))
	}
	return w.Frame
}
