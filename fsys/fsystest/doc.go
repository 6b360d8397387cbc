// Package fsystest is the conformance suite of fsys backends: one table of
// cases, run through every Provider method and every optional capability
// fsys declares (locks, temp files, sweeps, directory handles), with the
// same expectations for every backend, plus a differential runner that
// plays one random sequence of operations against two backends and compares
// every result and the final trees. The runner first requires both backends
// to have the same capabilities (Capabilities), so a capability one backend
// lacks fails the comparison instead of going unexercised.
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
// outside at all), so "../outside/secret" is a link that leaves. Temp files
// a killed commit would leave are planted with the raw helpers, named with
// a process id no kernel hands out or with the backend's own.
//
// Every check ends by proving that nothing outside the root changed and
// that no temp file in the exact format was left behind.
//
// This package is for tests only; it must not be imported by product code,
// and it must not hold expectations of one backend: what it asks of one it
// asks of all.
package fsystest
