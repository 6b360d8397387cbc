// Package winpath holds the rules for the spellings that Windows reads as
// something other than the one ordinary file they name. They are pure
// functions of the name, tested on every system; fsys/internal/confine and
// the workspace apply them on Windows only.
package winpath
