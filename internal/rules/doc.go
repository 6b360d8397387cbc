// Package rules holds repository rules checked as tests: the one confined
// walk (no raw os, path/filepath or io/ioutil file call by path outside
// fsys/local, except in tests and on a line a "not a workspace path"
// comment covers) and the documentation rules (every package has a doc.go).
//
// It has no code of its own and must not be imported.
package rules
