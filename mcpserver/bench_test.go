package mcpserver

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// goLikeText is about n bytes of 100-byte lines with a tab and quotes, so
// that JSON escaping costs what it costs on code.
func goLikeText(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		line := fmt.Sprintf("\tfmt.Printf(\"%%s: %%d\\n\", \"line number\", %d) // padding", i)
		b.WriteString(line + strings.Repeat(".", 99-len(line)) + "\n")
	}
	return b.String()
}

// BenchmarkReadOverStdio times one read of a whole file of the given size
// through ServeStdio, as a raw client sees it (request written, response
// line read).
func BenchmarkReadOverStdio(b *testing.B) {
	for _, size := range []int{4 << 10, 256 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			f := newFixture(b, map[string]string{"a.go": goLikeText(size)}, stet.Options{MaxReadBytes: 2 << 20})
			c := startRaw(b, New(f.ws, Options{}), 0)
			c.initialize()
			req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"path":"a.go","limit":100000}}}`
			b.SetBytes(int64(size))
			b.ResetTimer()
			for b.Loop() {
				c.send(req)
				// Framing only, as the baseline's raw client does.
				line := <-c.lines
				if !strings.HasPrefix(string(line[:40]), `{"jsonrpc":"2.0","id":1,"result":`) {
					b.Fatalf("response %.200s", line)
				}
			}
		})
	}
}
