package tempname

import (
	"bytes"
	"errors"
	"testing"
	"testing/iotest"
)

func TestNameComesFromRand(t *testing.T) {
	n := &Namer{PID: 42, Rand: bytes.NewReader([]byte{0, 1, 2, 3, 4, 5, 6, 7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff})}
	for _, want := range []string{".stet-tmp-42-0001020304050607", ".stet-tmp-42-f8f9fafbfcfdfeff"} {
		if got := n.Name(); got != want {
			t.Fatalf("Name() = %q, want %q", got, want)
		}
	}
	// The reader is spent: the name still comes, from crypto/rand, and
	// in the exact format.
	got := n.Name()
	if pid, ok := Parse(got); !ok || pid != 42 {
		t.Fatalf("Name() after the reader ran dry = %q, Parse: %d, %v", got, pid, ok)
	}
}

func TestNameWithoutRand(t *testing.T) {
	for _, n := range []*Namer{{PID: 7}, {PID: 7, Rand: iotest.ErrReader(errors.New("broken"))}} {
		a, b := n.Name(), n.Name()
		if pid, ok := Parse(a); !ok || pid != 7 {
			t.Fatalf("Name() = %q, Parse: %d, %v", a, pid, ok)
		}
		if a == b {
			t.Fatalf("two names from crypto/rand are equal: %q", a)
		}
	}
}
