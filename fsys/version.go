package fsys

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Version names a file's exact bytes: "sha256:" followed by 64 lowercase hex
// digits. Two files with the same bytes have the same Version whatever their
// modification times.
type Version string

// VersionPrefix starts every Version.
const VersionPrefix = "sha256:"

// VersionOf returns the Version of data.
func VersionOf(data []byte) Version {
	sum := sha256.Sum256(data)
	return Version(VersionPrefix + hex.EncodeToString(sum[:]))
}

// Valid reports whether v is well formed.
func (v Version) Valid() bool {
	s, ok := strings.CutPrefix(string(v), VersionPrefix)
	if !ok || len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// Hex returns the 64 hex digits of v without the prefix.
func (v Version) Hex() string {
	return strings.TrimPrefix(string(v), VersionPrefix)
}

// Short returns the first 12 hex digits of v, for messages meant for people.
func (v Version) Short() string {
	h := v.Hex()
	if len(h) > 12 {
		h = h[:12]
	}
	return VersionPrefix + h
}
