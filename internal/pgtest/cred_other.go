//go:build !unix

package pgtest

import "os/exec"

// credential: the cluster runs as the caller here.
type credential struct{}

func unprivileged() (*credential, error) { return nil, nil }

func (c *credential) own(string) error { return nil }

func (c *credential) apply(*exec.Cmd) {}
