// Package fsys is the provider seam: the small interface every file backend
// implements, the Version of a file's bytes, and the error kinds backends
// return.
//
// Backends live in sub-packages: fsys/local confines every operation to one
// host directory with os.Root; fsys/memfs keeps a tree in memory for tests,
// dry runs and differential checks. Both pass the same conformance suite.
//
// This package must not do IO of its own, and must not know about policy,
// sessions or the journal: it says what a backend can do, nothing about
// whether a caller may do it.
package fsys
