// Package fsystest is the conformance suite of fsys backends: one table of
// cases, run through every Provider method, with the same expectations for
// every backend, plus a differential runner that plays one random sequence
// of operations against two backends and compares every result and the
// final trees.
//
// Trees are written in the tiny notation of os/root_test.go:
//
//	"dir/"            a directory
//	"file"            a regular file holding its own name
//	"file=content"    a regular file holding content
//	"link => target"  a symlink; "$ROOT" and "$OUTSIDE" in the target stand
//	                  for Harness.Dir and Harness.Outside
//	"fifo|"           a named pipe (the test is skipped where unsupported)
//
// Missing parent directories are created. The root has a sibling directory
// named "outside" holding a file "secret" (for backends that have an
// outside at all), so "../outside/secret" is a link that leaves.
//
// This package is for tests only; it must not be imported by product code.
package fsystest
