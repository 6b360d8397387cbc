package local

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// direntBufSize is the getdents buffer of one directory read.
const direntBufSize = 32 << 10

// eachEntry calls fn with the name and kind of every entry of the directory
// open at fd, from raw getdents64 records: no allocation per entry and no
// stat, except on filesystems that do not report entry types.
func eachEntry(fd int, buf []byte, fn func(name string, isDir bool) error) error {
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n <= 0 {
			return nil
		}
		for off := 0; off < n; {
			// struct linux_dirent64 { u64 ino; s64 off; u16 reclen; u8 type; char name[]; }
			rec := buf[off:n]
			if len(rec) < 19 {
				return unix.EIO
			}
			reclen := int(binary.NativeEndian.Uint16(rec[16:18]))
			if reclen < 19 || reclen > len(rec) {
				return unix.EIO
			}
			off += reclen
			typ, name := rec[18], rec[19:reclen]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			if len(name) == 0 || string(name) == "." || string(name) == ".." {
				continue
			}
			if typ == unix.DT_UNKNOWN {
				var st unix.Stat_t
				if unix.Fstatat(fd, string(name), &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
					continue
				}
				if st.Mode&unix.S_IFMT == unix.S_IFDIR {
					typ = unix.DT_DIR
				}
			}
			if err := fn(string(name), typ == unix.DT_DIR); err != nil {
				return err
			}
		}
	}
}
