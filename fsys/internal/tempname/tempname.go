package tempname

import (
	crand "crypto/rand"
	"encoding/hex"
	"io"
	"strconv"
	"strings"
	"sync"
)

// Prefix starts every temp name.
const Prefix = ".stet-tmp-"

// randHex is the length of the random part of a temp name.
const randHex = 16

// Namer makes the temp names of one process. It is safe for concurrent use;
// it must not be copied after first use.
type Namer struct {
	// PID is the id of the process the names are made for.
	PID int
	// Rand is the source of the random part; nil means crypto/rand. Reads
	// from it are serialized. A read that fails falls back to crypto/rand:
	// a name must be made, and an unguessable one is always right.
	Rand io.Reader

	mu sync.Mutex
}

// Name returns a fresh temp name: Prefix, PID, "-" and 8 random bytes in
// hex.
func (n *Namer) Name() string {
	var b [randHex / 2]byte
	if n.Rand == nil || !n.read(b[:]) {
		crand.Read(b[:])
	}
	return Prefix + strconv.Itoa(n.PID) + "-" + hex.EncodeToString(b[:])
}

func (n *Namer) read(b []byte) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	_, err := io.ReadFull(n.Rand, b)
	return err == nil
}

// Parse reports whether name (a base name) is exactly a temp name: Prefix,
// the decimal id of the process that made it (no sign, no leading zero, at
// most 2^31-1), "-", and 16 lower-case hex digits. It returns that process
// id. A name that merely starts with Prefix (".stet-tmp-notes", a ".bak"
// copy of a temp file) is not a temp name.
func Parse(name string) (pid int, ok bool) {
	rest, found := strings.CutPrefix(name, Prefix)
	if !found {
		return 0, false
	}
	pidText, random, found := strings.Cut(rest, "-")
	if !found || len(random) != randHex || pidText == "" || len(pidText) > 10 || pidText[0] == '0' {
		return 0, false
	}
	for _, c := range []byte(pidText) {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	for _, c := range []byte(random) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(pidText, 10, 32)
	if err != nil {
		return 0, false
	}
	return int(v), true
}
