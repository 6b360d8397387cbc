// Package confine holds the one confined path walk shared by the fsys
// backends: it checks a provider name, then resolves it component by
// component, following symlinks only while they stay beneath the root.
//
// The walk decides; it does no IO of its own. A backend supplies Lstat and
// Readlink over paths that the walk has already resolved, and must still
// perform the operation itself through a handle that refuses escapes
// (fsys/local uses os.Root), because the tree can change between the walk
// and the operation.
package confine
