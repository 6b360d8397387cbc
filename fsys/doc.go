// Package fsys is the provider seam: the small interface every file backend
// implements (Provider), the Version of a file's bytes, the error kinds
// backends return, and the optional capabilities a backend may have.
//
// Each optional capability is an interface declared here with a helper that
// falls back when a backend lacks it, as io/fs does (fs.ReadFile falls back
// to Open): Trace to Resolver, Check and Open to ReadFile, ReadDirTypes to
// ReadDir, OpenDir to Open by path, Lock to no lock, Hold to a Handle that
// walks the name for each operation, and for backends that write through
// temp files, TempName, CreateAs, RemoveTemp, Sweep and SweepDir to "no temp
// files". Callers use the helpers, not assertions of
// their own, so every capability they rely on is named here and checked by
// the conformance suite (fsys/fsystest) on every backend.
//
// Backends live in sub-packages: fsys/local confines every operation to one
// host directory with os.Root and is the only backend stet runs on; fsys/memfs
// keeps a tree in memory with the same semantics, for tests and for the
// differential checks that compare it with fsys/local step by step. Both
// implement every capability but Holder and pass the same suite; memfs has
// no directory to hold open, so its Handle is the walking one, and the
// differential checks compare fsys/local's held operations with it.
//
// This package must not do IO of its own, and must not know about policy,
// sessions or the journal: it says what a backend can do, nothing about
// whether a caller may do it.
package fsys
