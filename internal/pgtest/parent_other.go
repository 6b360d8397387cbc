//go:build !linux

package pgtest

import "os/exec"

// dieWithParent: only Linux can tie the server's life to the test
// process; elsewhere Stop (or Close) ends it.
func dieWithParent(*exec.Cmd) {}
