//go:build !unix

package review_test

import "os/exec"

// ownGroup is a no-op where process groups are not available.
func ownGroup(cmd *exec.Cmd) {}

// killGroup kills the process itself where groups are not available.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
