// Package filelock is a table of in-process locks keyed by file identity
// (a backend's resolved path), shared by the fsys backends to implement
// fsys.Locker.
//
// It does no IO and knows nothing of paths: a key is any string.
package filelock
