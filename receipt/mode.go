package receipt

import (
	"fmt"
	"io/fs"
	"strconv"

	"github.com/stet-dev/stet/fsys"
)

// FormatMode writes the fsys.ModeBits of m as State.Mode does: four octal
// digits, the first holding setuid (4), setgid (2) and sticky (1).
func FormatMode(m fs.FileMode) string {
	n := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		n |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		n |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		n |= 0o1000
	}
	return fmt.Sprintf("%04o", n)
}

// ParseMode reads a State.Mode back into an fs.FileMode holding only
// fsys.ModeBits. It accepts one to four octal digits and refuses anything
// else, so a damaged receipt never turns into surprising permissions.
func ParseMode(s string) (fs.FileMode, error) {
	if s == "" || len(s) > 4 {
		return 0, fmt.Errorf("mode %q: want up to four octal digits", s)
	}
	n, err := strconv.ParseUint(s, 8, 32)
	if err != nil {
		return 0, fmt.Errorf("mode %q: want up to four octal digits: %w", s, err)
	}
	m := fs.FileMode(n & 0o777)
	if n&0o4000 != 0 {
		m |= fs.ModeSetuid
	}
	if n&0o2000 != 0 {
		m |= fs.ModeSetgid
	}
	if n&0o1000 != 0 {
		m |= fs.ModeSticky
	}
	return m & fsys.ModeBits, nil
}
