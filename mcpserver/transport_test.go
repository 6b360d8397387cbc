package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// lockedBuffer is a bytes.Buffer safe for the connection's concurrent
// writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// drain runs a lineConn over input, answering every call it delivers, and
// returns how many messages it delivered and the lines it answered by
// itself (the error replies).
func drain(t testing.TB, input string, max int) (delivered int, replies []string) {
	var out lockedBuffer
	ctx := context.Background()
	conn, err := (&lineTransport{in: strings.NewReader(input), out: &out, max: max}).Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for {
		m, err := conn.Read(ctx)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("Read: %v", err)
			}
			break
		}
		delivered++
		if r, ok := m.(*jsonrpc.Request); ok && r.IsCall() {
			if err := conn.Write(ctx, &jsonrpc.Response{ID: r.ID, Result: json.RawMessage(`{"answered":true}`)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	conn.Close()
	for _, l := range strings.Split(out.String(), "\n") {
		if l != "" && !strings.Contains(l, `"result":{"answered":true}`) {
			replies = append(replies, l)
		}
	}
	return delivered, replies
}

func TestLineConn(t *testing.T) {
	input := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`not json`,
		`  {"jsonrpc":"2.0","method":"notifications/initialized"}  `,
		``,
		"\r",
		`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\r",
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"x":"` + strings.Repeat("a", 300) + `"}}`,
		`{"jsonrpc":"2.0","id":4,"result":{}}`,
		`{"jsonrpc":"2.0","id":{"x":1},"result":{}}`,
		`{"jsonrpc":"2.0","id":5,"method":"ping"}`, // last line without newline
	}, "\n")
	delivered, replies := drain(t, input, 200)
	if delivered != 5 { // pings 1, 2, 5, the notification, the response 4
		t.Errorf("delivered %d messages, want 5", delivered)
	}
	want := []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"message too large`,
	}
	if len(replies) != len(want) {
		t.Fatalf("replies = %q, want %d", replies, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(replies[i], w) {
			t.Errorf("reply %d = %s, want prefix %s", i, replies[i], w)
		}
	}
}

func TestReadLine(t *testing.T) {
	br := bufio.NewReaderSize(strings.NewReader("short\n"+strings.Repeat("x", 100)+"\nlast"), 16)
	line, head, size, err := readLine(br, 50, nil)
	if string(line) != "short" || head != nil || size != 6 || err != nil {
		t.Fatalf("first line: %q %q %d %v", line, head, size, err)
	}
	line, head, size, err = readLine(br, 50, nil)
	if line != nil || string(head) != strings.Repeat("x", 64) || size != 101 || err != nil {
		t.Fatalf("long line: %q %q %d %v", line, head, size, err)
	}
	line, _, _, err = readLine(br, 50, nil)
	if string(line) != "last" || err != io.EOF {
		t.Fatalf("last line: %q %v", line, err)
	}
}

func TestFindID(t *testing.T) {
	for in, want := range map[string]string{
		`{"jsonrpc":"2.0","id":7,"method":"x"}`:                 `7`,
		`{"id":"abc","params":{"big":"`:                         `"abc"`,
		`{"params":{"big":"trunc`:                               ``,
		`{"method":"x","params":{"a":[1,2,{"b":null}]},"id":9}`: `9`,
		`{"id":null}`:                 ``,
		`{"id":{"a":1}}`:              ``,
		`[1]`:                         ``,
		`{"id":12345678901234567890}`: `12345678901234567890`,
	} {
		if got := string(findID([]byte(in))); got != want {
			t.Errorf("findID(%s) = %s, want %s", in, got, want)
		}
	}
}

// FuzzLineConn: whatever arrives on stdin, the connection never panics,
// every line it writes is a JSON-RPC error response, and each request line
// is either delivered or answered.
func FuzzLineConn(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `garbage` + "\n")
	f.Add(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	f.Add(`{"jsonrpc":"2.0","id":"a","method":` + "\n\n\r\n")
	f.Add(`{"id":1,"params":"` + strings.Repeat("z", 200) + `"}`)
	f.Add("\xff\xfe{}\n[]\nnull\n1\n\"s\"\n")
	f.Fuzz(func(t *testing.T, input string) {
		_, replies := drain(t, input, 128)
		for _, r := range replies {
			var m struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(r), &m); err != nil || m.JSONRPC != "2.0" || m.Error == nil || m.Error.Message == "" {
				t.Fatalf("reply %q is not a JSON-RPC error", r)
			}
		}
	})
}

// FuzzFindID: findID returns a JSON string or number, or nothing.
func FuzzFindID(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":7,"method":"x"}`)
	f.Add(`{"id":"abc","params":{"big":"`)
	f.Add(`{"a":{"id":1},"id":[1]}`)
	f.Fuzz(func(t *testing.T, s string) {
		id := findID([]byte(s))
		if id == nil {
			return
		}
		var v any
		if err := json.Unmarshal(id, &v); err != nil {
			t.Fatalf("findID(%q) = %s, not JSON", s, id)
		}
		switch v.(type) {
		case string, float64:
		default:
			t.Fatalf("findID(%q) = %s, not a string or number", s, id)
		}
	})
}
