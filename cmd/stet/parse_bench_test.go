package main

import (
	"flag"
	"io"
	"testing"
)

// BenchmarkParseRead: the cost of parsing `stet read`'s flags, the part of
// its start-up the flag library owns: through pflag (parse) and, for
// comparison, through the flag package alone.
func BenchmarkParseRead(b *testing.B) {
	args := []string{"--offset", "10", "--limit", "20", "README.md", "--json"}
	build := func() *flag.FlagSet {
		e := &env{g: newGlobals(), stdout: io.Discard, stderr: io.Discard}
		fs := e.newFlags("read", "read")
		fs.Int("offset", 0, "")
		fs.Int("limit", 0, "")
		fs.Int("tail", 0, "")
		fs.String("path", "", "")
		return fs
	}
	b.Run("pflag", func(b *testing.B) {
		for b.Loop() {
			if _, err := parse(build(), args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("flag", func(b *testing.B) {
		for b.Loop() {
			fs := build()
			if err := fs.Parse(args); err != nil {
				b.Fatal(err)
			}
		}
	})
}
