// Package tempname is the one format of the temp file names the fsys
// backends write through (Prefix, the decimal id of the process that made
// the name, "-", and 16 lower-case hex digits), shared so that every backend
// makes, recognises and sweeps the same names.
//
// It does no IO. Its random part comes from the reader a Namer is given, so
// a test can make names repeat; nil means crypto/rand.
package tempname
