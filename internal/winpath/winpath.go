package winpath

import (
	"errors"
	"fmt"
	"strings"
)

// ErrName is wrapped by every error Check returns: a name Windows would read
// as something other than the file it spells.
var ErrName = errors.New("not a plain Windows file name")

// Check checks a slash-separated relative name for the spellings
// that Windows reads as something other than one ordinary file, and
// returns an error naming the component and why, or nil:
//
//   - a reserved device name, with or without an extension or trailing
//     spaces: CON, PRN, AUX, NUL, COM0 to COM9, LPT0 to LPT9 (and COM or
//     LPT with a superscript 1, 2 or 3), CONIN$, CONOUT$;
//   - a component ending in a dot or a space, which Windows drops, so that
//     "secrets." would name "secrets";
//   - a colon (a drive-relative "C:x", or an alternate data stream
//     "file:stream") or any of < > " | ? * or a control character;
//   - the shape of a short 8.3 alias such as "PROGRA~1" or "SECRET~1.ENV",
//     which may name a file whose full name is different.
//
// Backslashes must already be slashes. It is pure and runs on every
// system; stet applies it on Windows only, since all of these are
// ordinary names elsewhere.
func Check(name string) error {
	for c := range strings.SplitSeq(name, "/") {
		if c == "" || c == "." || c == ".." {
			continue
		}
		if why := windowsComponent(c); why != "" {
			return fmt.Errorf("%w: %q %s", ErrName, c, why)
		}
	}
	return nil
}

func windowsComponent(c string) string {
	for _, r := range c {
		switch {
		case r < 0x20:
			return "holds a control character"
		case r == ':':
			return "holds a colon (a drive or an alternate data stream on Windows)"
		case strings.ContainsRune(`<>"|?*`, r):
			return fmt.Sprintf("holds %q, which Windows does not allow in a name", r)
		}
	}
	if last := c[len(c)-1]; last == '.' || last == ' ' {
		return "ends in a dot or a space, which Windows drops (it would name another file)"
	}
	base, ext, _ := strings.Cut(c, ".")
	if isReservedDevice(strings.TrimRight(base, " ")) {
		return "is a reserved device name on Windows"
	}
	if isShortAlias(base, ext) {
		return "has the shape of a short 8.3 alias, which can name a file with a different full name"
	}
	return ""
}

// isReservedDevice reports whether base, the part of a name before its
// first dot, is a Windows device name.
func isReservedDevice(base string) bool {
	u := strings.ToUpper(base)
	switch u {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(u) < 4 || (u[:3] != "COM" && u[:3] != "LPT") {
		return false
	}
	switch d := u[3:]; d {
	case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
		return true
	}
	return false
}

// isShortAlias reports whether base.ext looks like an 8.3 short name that
// Windows generates: at most eight characters ending in "~" and digits,
// and an extension of at most three.
func isShortAlias(base, ext string) bool {
	if len(base) > 8 || len(ext) > 3 || strings.Contains(ext, ".") {
		return false
	}
	i := strings.LastIndexByte(base, '~')
	if i <= 0 || i == len(base)-1 {
		return false
	}
	for _, d := range []byte(base[i+1:]) {
		if d < '0' || d > '9' {
			return false
		}
	}
	return true
}
