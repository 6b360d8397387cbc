// Package memfs is an in-memory fsys backend with the semantics of
// fsys/local: the same confined symlink walk, the same errors, the same
// compare-and-swap rules, the same Hooks, and every optional Provider
// capability fsys declares (temp names, sweeps and directory handles
// included). It is for tests: a tree a test builds and inspects without a
// disk (internal/fstree builds one from a table), and the second backend of
// the differential checks (fsys/fsystest) that play one random sequence
// against it and fsys/local and compare every result. It is not a dry-run
// or caching layer, and nothing in stet serves a user's files from it.
//
// Absolute symlink targets are read against a fake root path, Dir() ("/memfs"
// unless Options.Dir says otherwise): "/memfs/a/b" points at "a/b" inside;
// any other absolute target leaves the tree and fails with fsys.ErrOutside.
// There is no umask: new files get exactly the permission bits asked for,
// new directories 0o755.
//
// Commits change the tree in place and keep no temp files, but temp names
// are made (TempName, from Options.Rand), checked (a name fsys/local would
// not make, or one taken in the directory, is refused as there), removed
// (RemoveTemp) and swept as fsys/local does. Only this process can reach
// the tree, so Sweep counts the maker of a temp file named with any other
// process id as gone, and keeps those named with this process's id.
//
// The helpers WriteFile, Symlink, Mkfifo, Link, Readlink and RemoveAll
// change the tree the way another program would, with no guards; they exist
// to build trees and inject races in tests.
//
// Options.Fold makes the tree a volume that takes several spellings for
// one name (letter case, Unicode forms), as APFS, NTFS or an ext4 casefold
// directory do, which the Linux test machine cannot mount: tests use it to
// check stet's rules on such a volume.
//
// This package must not touch the host filesystem, and must not differ
// from fsys/local in anything the conformance suite can observe: a
// difference is a bug in one of them.
package memfs
