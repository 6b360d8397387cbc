package local

import (
	"os"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// beneath opens directories below the root with one openat2(2), confined
// by the kernel (RESOLVE_BENEATH), where os.Root's open of a directory
// costs four fcntl(2)s and a failing epoll_ctl(2) around its openat(2)
// (the runtime tries to poll every file it opens). It holds a descriptor
// of the root, made on first use.
type beneath struct {
	once sync.Once
	root *os.File // nil when it could not be opened
	off  atomic.Bool
}

// openDir opens rel, a resolved path (no symlink on it), as a bare
// descriptor; ok is false when it cannot (a kernel without openat2, a
// symlink swapped in since, any error), and the caller opens rel through
// os.Root, which says what is wrong.
func (b *beneath) openDir(r *os.Root, rel string) (fd int, ok bool) {
	if b.off.Load() {
		return -1, false
	}
	b.once.Do(func() {
		if f, err := r.OpenFile(".", os.O_RDONLY|unix.O_DIRECTORY, 0); err == nil {
			b.root = f
		}
	})
	if b.root == nil {
		return -1, false
	}
	fd, err := unix.Openat2(int(b.root.Fd()), rel, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err == unix.ENOSYS {
		b.off.Store(true)
	}
	return fd, err == nil
}

func (b *beneath) close() {
	b.once.Do(func() {})
	if b.root != nil {
		b.root.Close()
	}
}
