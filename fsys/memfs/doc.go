// Package memfs is an in-memory fsys backend with the semantics of
// fsys/local: the same confined symlink walk, the same errors, the same
// compare-and-swap rules, and the same Hooks. It serves tests, dry runs and
// differential checks against the host backend.
//
// Absolute symlink targets are read against a fake root path, Dir() ("/memfs"
// unless Options.Dir says otherwise): "/memfs/a/b" points at "a/b" inside;
// any other absolute target leaves the tree and fails with fsys.ErrOutside.
// There is no umask: new files get exactly the permission bits asked for,
// new directories 0o755.
//
// The helpers WriteFile, Symlink, Mkfifo, Link, Readlink and RemoveAll
// change the tree the way another program would, with no guards; they exist
// to build trees and inject races in tests.
//
// This package must not touch the host filesystem.
package memfs
