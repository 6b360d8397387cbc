package local

import (
	"testing"

	"golang.org/x/sys/unix"
)

// A refused lease is trusted only on local filesystems: on NFS or SMB a
// client may refuse one with no writer anywhere, which would refuse every
// change there.
func TestOpenWriterAsksOnlyLocalFilesystems(t *testing.T) {
	for magic, want := range map[int64]bool{
		unix.NFS_SUPER_MAGIC: true, 0xFF534D42: true, 0xFE534D42: true, unix.SMB_SUPER_MAGIC: true,
		unix.EXT4_SUPER_MAGIC: false, unix.TMPFS_MAGIC: false, unix.XFS_SUPER_MAGIC: false, unix.BTRFS_SUPER_MAGIC: false,
	} {
		if got := networkFS(magic); got != want {
			t.Errorf("networkFS(%#x) = %v, want %v", magic, got, want)
		}
	}
}
