//go:build unix

package main

import (
	"fmt"
	"os"
	"syscall"
)

// foreignHome refuses a setup --write that runs as root for another user's
// home (sudo -E keeps HOME): what it creates there (the configuration
// file's directory, stet's state directory under ~/.local/state) would be
// root's, and every later stet command of that user would fail with
// "permission denied".
func foreignHome(home string) error {
	if os.Geteuid() != 0 || home == "" {
		return nil
	}
	fi, err := os.Stat(home) // the home directory, before anything is written: not a workspace path
	if err != nil {
		return nil
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Uid == 0 {
		return nil
	}
	return fmt.Errorf("stet setup --write runs as root, but the home directory %s belongs to user id %d: what it writes there would be root's and that user's stet would fail with permission denied; run it as that user, without sudo; nothing was written", home, st.Uid)
}
