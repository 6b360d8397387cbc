package local_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/stet-dev/stet/fsys/local"
)

// The descriptor a sweep holds on the root directory is close-on-exec: a
// child the embedding program starts during the sweep does not keep it.
// The check runs inside the sweep (its keep callback), while that
// descriptor is open: every descriptor of this process on the root must
// carry FD_CLOEXEC.
func TestSweepDescriptorsAreCloseOnExec(t *testing.T) {
	dir := t.TempDir()
	l, err := local.Open(dir, local.Options{})
	must(t, err)
	defer l.Close()
	const temp = local.TempPrefix + "2147483646-00000000000000aa"
	must(t, os.WriteFile(filepath.Join(dir, temp), []byte("x"), 0o600))
	var root unix.Stat_t
	must(t, unix.Stat(dir, &root))
	asked, seen := 0, 0
	keep := func(string) bool {
		asked++
		fds, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd:", err)
		}
		for _, e := range fds {
			fd, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			var st unix.Stat_t
			if unix.Fstat(fd, &st) != nil || st.Dev != root.Dev || st.Ino != root.Ino {
				continue
			}
			seen++
			flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
			if err == nil && flags&unix.FD_CLOEXEC == 0 {
				t.Errorf("descriptor %d of the swept directory is not close-on-exec", fd)
			}
		}
		return true
	}
	_, err = l.SweepKeeping(nil, keep)
	must(t, err)
	if asked != 1 || seen == 0 {
		t.Fatalf("keep asked %d times, %d descriptors of the directory seen: the check did not run inside the sweep", asked, seen)
	}
}
