// Package rules holds repository rules checked as tests: the one confined
// walk (no raw os file calls on user paths outside fsys/local) and the
// documentation rules (every package has a doc.go).
//
// It has no code of its own and must not be imported.
package rules
