package pgtest

import (
	"os/exec"
	"syscall"
)

// dieWithParent kills the server when the test process dies, so a crashed
// or killed test leaves no cluster running.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
