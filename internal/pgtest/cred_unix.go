//go:build unix

package pgtest

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"
)

// credential is the user the cluster runs as when the caller is root; nil
// runs it as the caller.
type credential struct{ uid, gid uint32 }

// unprivileged returns nil for a caller that is not root, else the user
// nobody (initdb and postgres refuse to run as root).
func unprivileged() (*credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil, fmt.Errorf("%w: running as root, and no user nobody to run initdb as: %v", ErrUnavailable, err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("%w: user nobody has ids %s:%s", ErrUnavailable, u.Uid, u.Gid)
	}
	return &credential{uid: uint32(uid), gid: uint32(gid)}, nil
}

// own gives dir to the cluster's user.
func (c *credential) own(dir string) error {
	if c == nil {
		return nil
	}
	return os.Chown(dir, int(c.uid), int(c.gid)) // not a workspace path: the test cluster's own directory
}

// apply runs cmd as the cluster's user.
func (c *credential) apply(cmd *exec.Cmd) {
	if c == nil {
		return
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: c.uid, Gid: c.gid, NoSetGroups: true}
}
