// Package fstree builds and snapshots small file trees for the facade's case
// tables, on the host (in a temp dir) or in memory (fsys/memfs). Trees are
// written in the notation of fsys/fsystest ("dir/", "file", "file=content",
// "link => target", "fifo|", with "$ROOT" and "$OUTSIDE" in link targets).
//
// A snapshot lists every entry under the root with its type, bytes (files),
// target (links) and permission bits, so a test can compare the whole tree
// before and after a call. On the host the root has a sibling "outside"
// holding "secret" and "dir/secret"; OutsideDigest summarises everything there
// so a test can prove a call changed nothing outside the root.
//
// Host trees are made and read through an os.Root opened on the temp
// directory, never by raw path. This package is for tests only.
package fstree
