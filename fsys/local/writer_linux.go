package local

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stet-dev/stet/fsys"
)

// writerWait bounds how long a change waits for a writer of its file to
// close it before it is refused. A descriptor can stay open for writing a
// moment after its owner closed it: a child forked meanwhile by any thread
// of the owner holds a copy until its exec closes it (O_CLOEXEC closes it
// at the exec, not at the fork), which under load takes milliseconds, and
// a killed process holds its descriptors until it has exited. A writer
// that keeps the file open (a logger, tee -a) is still there after the
// wait.
const writerWait = 250 * time.Millisecond

// maxHolders caps the processes a refusal names.
const maxHolders = 3

// openWriter reports whether another process holds base (in d) open for
// writing: a read lease (fcntl F_SETLEASE, F_RDLCK) cannot be placed while
// any descriptor of the file is open for writing, and fails with EAGAIN.
// The lease is released at once. A refused lease is asked again for up to
// writerWait (see there); the error is then a *fsys.WriterError naming the
// holders /proc shows. What it cannot tell is not an error: a file of
// another owner without CAP_LEASE (EACCES), a filesystem without leases
// (EINVAL), a file opened for writing after the check. Network
// filesystems are not asked at all: an NFS or SMB client may refuse a read
// lease (EAGAIN) whenever the server has not delegated one, writer or not,
// which would refuse every change there.
func openWriter(d *dirHandle, base string) error {
	fd, err := unix.Openat(d.fd, base, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil // the swap's own checks report what is wrong with the name
	}
	defer unix.Close(fd)
	var st unix.Statfs_t
	if unix.Fstatfs(fd, &st) != nil || networkFS(int64(st.Type)) {
		return nil
	}
	return awaitNoWriter(fd, writerWait, time.Sleep)
}

// awaitNoWriter asks for a read lease on the file open at fd until one is
// granted (nil) or the pauses between the asks, doubling from a
// millisecond, add up to budget: then a *fsys.WriterError. pause sleeps.
func awaitNoWriter(fd int, budget time.Duration, pause func(time.Duration)) error {
	var waited time.Duration
	for step := time.Millisecond; ; step *= 2 {
		_, err := unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_RDLCK)
		switch {
		case err == nil:
			unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_UNLCK)
			return nil
		case !errors.Is(err, unix.EAGAIN):
			return nil
		}
		if waited >= budget {
			return &fsys.WriterError{Waited: waited, Holders: writersOf(fd, "/proc")}
		}
		step = min(step, budget-waited)
		pause(step)
		waited += step
	}
}

// writersOf names the processes that hold the file open at fd open for
// writing, as proc (a procfs mount) shows them: every descriptor of every
// process this one may inspect whose file is fd's and whose fdinfo flags
// allow writing. It stops at maxHolders; nothing readable is no holder.
func writersOf(fd int, proc string) []string {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return nil
	}
	pids, err := os.ReadDir(proc)
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []string
	for _, p := range pids {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		dir := proc + "/" + p.Name()
		fds, err := os.ReadDir(dir + "/fd")
		if err != nil {
			continue
		}
		for _, e := range fds {
			var fst unix.Stat_t
			if unix.Stat(dir+"/fd/"+e.Name(), &fst) != nil || fst.Dev != st.Dev || fst.Ino != st.Ino {
				continue
			}
			if !writableFdinfo(dir + "/fdinfo/" + e.Name()) {
				continue
			}
			who := "this process"
			if pid != self {
				b, _ := os.ReadFile(dir + "/comm")
				who = string(bytes.TrimSpace(b))
			}
			out = append(out, fmt.Sprintf("pid %d (%s)", pid, who))
			if len(out) == maxHolders {
				return out
			}
			break // one line per process
		}
	}
	return out
}

// writableFdinfo reports whether the fdinfo file at name shows a
// descriptor open for writing (its octal "flags:" line).
func writableFdinfo(name string) bool {
	b, err := os.ReadFile(name)
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(b)) {
		v, ok := strings.CutPrefix(line, "flags:")
		if !ok {
			continue
		}
		flags, err := strconv.ParseUint(strings.TrimSpace(v), 8, 64)
		return err == nil && flags&unix.O_ACCMODE != unix.O_RDONLY
	}
	return false
}

// networkFS reports whether a statfs type is a network filesystem's, where
// a refused lease says nothing about local writers.
func networkFS(magic int64) bool {
	switch uint32(magic) {
	case unix.NFS_SUPER_MAGIC, unix.SMB_SUPER_MAGIC, 0xFF534D42 /* CIFS */, 0xFE534D42 /* SMB2 */, unix.AFS_SUPER_MAGIC, unix.CODA_SUPER_MAGIC, unix.V9FS_MAGIC:
		return true
	}
	return false
}
