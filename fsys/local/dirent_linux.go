package local

import (
	"encoding/binary"

	"golang.org/x/sys/unix"

	"github.com/stet-dev/stet/fsys"
)

// direntBufSize is the getdents buffer of one directory read.
const direntBufSize = 32 << 10

// eachEntry calls fn with the name and type of every entry of the directory
// open at fd, from raw getdents64 records: no allocation per entry but its
// name, and no stat, except on filesystems that do not report entry types.
func eachEntry(fd int, buf []byte, fn func(name string, typ fsys.Type) error) error {
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
			var t fsys.Type
			switch typ {
			case unix.DT_REG:
				t = fsys.TypeFile
			case unix.DT_DIR:
				t = fsys.TypeDir
			case unix.DT_LNK:
				t = fsys.TypeSymlink
			case unix.DT_UNKNOWN:
				var st unix.Stat_t
				if unix.Fstatat(fd, string(name), &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
					continue // gone since the listing, as ReadDir skips it
				}
				t = typeOfMode(st.Mode)
			default:
				t = fsys.TypeOther
			}
			if err := fn(string(name), t); err != nil {
				return err
			}
		}
	}
}
