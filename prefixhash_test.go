package stet

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/engine"
)

// The version resumed from a kept state is the version of the bytes, for
// edits anywhere, and also when the caller's first difference is wrong.
func TestPrefixHashResumes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{0, 1, 100, engine.HashStep - 1, engine.HashStep, engine.HashStep + 1, 3*engine.HashStep + 17, 8 * engine.HashStep} {
		pre := make([]byte, size)
		for i := range pre {
			pre[i] = byte(r.IntN(256))
		}
		p := engine.HashKeeping(pre)
		if p.Sum != fsys.VersionOf(pre) {
			t.Fatalf("%d bytes: the kept hash is not the version", size)
		}
		for _, at := range []int{0, size / 3, size / 2, engine.HashStep, 2 * engine.HashStep, size} {
			if at > size {
				continue
			}
			post := append(append(bytes.Clone(pre[:at]), "NEW"...), pre[min(at+5, size):]...)
			want := fsys.VersionOf(post)
			for _, first := range []int{at, at + 2*engine.HashStep, size + engine.HashStep, 0} {
				if got := p.VersionOf(post, first); got != want {
					t.Errorf("%d bytes, edit at %d, first %d: %s, want %s", size, at, first, got.Short(), want.Short())
				}
			}
		}
	}
}
