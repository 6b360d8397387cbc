// Package golden keeps the golden files of stet's format tests: txtar
// archives (a comment, then "-- name --" sections) compared byte for byte
// and rewritten, when a test runs with -update, from what the code makes now.
//
// Nondeterministic values are normalized before they are compared, in one
// way for every caller (see Normalizer): each distinct value is replaced by a
// placeholder named for its kind and its order of first appearance, so
// "sha256:<64 hex>" of a file version becomes "sha256:V1", "sha256:V2"...
// and a temp directory becomes "$TMP". A test that pins a value (a
// receipt's time from a fixed clock) does not register it.
package golden
