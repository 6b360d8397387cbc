package local

import (
	"strconv"
	"strings"
)

// tempRandHex is the length of the random part of a temp name.
const tempRandHex = 16

// IsTempName reports whether name (a base name) is exactly a temp name this
// package makes: TempPrefix, the decimal id of the process that made it (no
// sign, no leading zero, at most 2^31-1), "-", and 16 lower-case hex
// digits. It returns that process id. A user's file that merely starts
// with TempPrefix (".stet-tmp-notes", a ".bak" copy of a temp file) is not
// a temp name.
func IsTempName(name string) (pid int, ok bool) {
	rest, found := strings.CutPrefix(name, TempPrefix)
	if !found {
		return 0, false
	}
	pidText, random, found := strings.Cut(rest, "-")
	if !found || len(random) != tempRandHex || pidText == "" || len(pidText) > 10 || pidText[0] == '0' {
		return 0, false
	}
	for _, c := range []byte(pidText) {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	for _, c := range []byte(random) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(pidText, 10, 32)
	if err != nil {
		return 0, false
	}
	return int(n), true
}
