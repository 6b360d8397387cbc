package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// These are the benchmark's own file operations: fixtures, checks and the
// limit target. Every path is inside the benchmark's work directory, never
// a user's workspace.

// readFile reads a file of the work directory.
func readFile(path string) ([]byte, error) {
	return os.ReadFile(path) // not a workspace path: the benchmark's own fixture
}

// writeFixture writes a fixture file, creating its directory.
func writeFixture(path string, data []byte) error {
	// not a workspace path: the benchmark's own work directory
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644) // not a workspace path: a fixture
}

// makeDir creates a directory of the work directory.
func makeDir(path string) error {
	return os.MkdirAll(path, 0o755) // not a workspace path: the benchmark's own
}

// removeAll removes a directory of the work directory.
func removeAll(path string) error {
	return os.RemoveAll(path) // not a workspace path: the benchmark's own
}

// makeTemp creates the benchmark's work directory.
func makeTemp(dir, pattern string) (string, error) {
	return os.MkdirTemp(dir, pattern) // not a workspace path: the benchmark's own
}

// checkFile reports whether the file at path holds exactly want.
func checkFile(path string, want []byte) error {
	got, err := readFile(path)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%s holds %d bytes, not the %d expected (first difference at byte %d)",
			filepath.Base(path), len(got), len(want), firstDiff(got, want))
	}
	return nil
}

func firstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// durableWrite is the limit of a safe write: a temp file in the same
// directory, written, fsynced and closed, renamed over path, then the
// directory fsynced, so the new bytes are complete and survive a crash.
func durableWrite(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".limit-*") // not a workspace path: the limit target's files
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path) // not a workspace path: the limit target's files
	}
	if err != nil {
		os.Remove(tmp) // not a workspace path: the limit target's temp file
		return err
	}
	d, err := os.Open(dir) // not a workspace path: the limit target's directory
	if err != nil {
		return err
	}
	err = d.Sync()
	return errors.Join(err, d.Close())
}

// limitEdit is the limit of an edit: read, check that old occurs exactly
// once, replace it, and write durably.
func limitEdit(path, old, new string) error {
	data, err := readFile(path)
	if err != nil {
		return err
	}
	if n := bytes.Count(data, []byte(old)); n != 1 {
		return fmt.Errorf("%q occurs %d times, not once", old, n)
	}
	return durableWrite(path, bytes.Replace(data, []byte(old), []byte(new), 1))
}
