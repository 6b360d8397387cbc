package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"hash"

	"github.com/stet-dev/stet/fsys"
)

// hashStep is how far apart prefixHash keeps the hash's state: a multiple
// of SHA-256's 64-byte block.
const HashStep = 128 << 10

// prefixHash is the version of some bytes (b), hashed keeping the hash's
// state every hashStep bytes, so that the version of other bytes sharing a
// prefix with b (an edit's result shares everything before its first
// match) resumes from the last state within that prefix instead of hashing
// it again.
type prefixHash struct {
	b      []byte
	states [][]byte // the state after b[:i*hashStep], marshaled
	Sum    fsys.Version
}

// hashKeeping hashes b, keeping the states.
func HashKeeping(b []byte) *prefixHash {
	h := sha256.New()
	m, ok := h.(encoding.BinaryMarshaler)
	p := &prefixHash{b: b}
	for off := 0; off < len(b); off += HashStep {
		if ok {
			if st, err := m.MarshalBinary(); err == nil {
				p.states = append(p.states, st)
			}
		}
		h.Write(b[off:min(off+HashStep, len(b))])
	}
	p.Sum = sumVersion(h)
	return p
}

// versionOf returns the version of post, which is expected to hold b's
// bytes up to first (an edit's first match): it resumes from the last kept
// state at or before first whose prefix post is seen to share with b
// (compared, which costs far less than hashing it), and hashes post whole
// where there is none.
func (p *prefixHash) VersionOf(post []byte, first int) fsys.Version {
	i := min(first, len(post)) / HashStep
	if i >= len(p.states) {
		i = len(p.states) - 1
	}
	for ; i > 0; i-- {
		k := i * HashStep
		if k <= len(post) && k <= len(p.b) && bytes.Equal(post[:k], p.b[:k]) {
			break
		}
	}
	if i <= 0 {
		return fsys.VersionOf(post)
	}
	h := sha256.New()
	u, ok := h.(encoding.BinaryUnmarshaler)
	if !ok || u.UnmarshalBinary(p.states[i]) != nil {
		return fsys.VersionOf(post)
	}
	h.Write(post[i*HashStep:])
	return sumVersion(h)
}

func sumVersion(h hash.Hash) fsys.Version {
	return fsys.Version(fsys.VersionPrefix + hex.EncodeToString(h.Sum(nil)))
}
