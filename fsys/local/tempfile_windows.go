package local

import (
	"errors"
	"io/fs"
	"os"
)

// The temp file of a commit on Windows: its bytes, flushed with
// FlushFileBuffers (File.Sync), then the read-only flag, the one bit of a
// mode Windows keeps.

// meta is what a new temp file takes on before it is swapped in.
type meta struct {
	perm uint32 // only the write bit counts: without it the file is read-only
	// notes collects what could not be kept (nothing is noted on Windows).
	notes []string
	// temp is the temp file's name when the caller chose it (TempName);
	// "" makes a fresh one.
	temp string
}

// oldMeta describes the file base in d for a replace: the mode the walk
// saw (fallback), of which only the read-only flag is kept. Owner, ACLs
// and alternate data streams are those a new file gets in the directory.
func oldMeta(_ *dirHandle, _ string, fallback uint32) *meta {
	return &meta{perm: fallback}
}

// createMeta is the metadata of a new file: perm 0 is 0o644, and only its
// write bit counts.
func createMeta(perm fs.FileMode, temp string) *meta {
	if perm == 0 {
		perm = 0o644
	}
	return &meta{perm: uint32(perm.Perm()), temp: temp}
}

func (m *meta) closeSrc() {}

// writeTemp makes a new temp file in d (exclusive create) holding data,
// flushed to disk with FlushFileBuffers (File.Sync), read-only when m.perm
// has no write bit, and returns its name and file index.
func (l *FS) writeTemp(d *dirHandle, data []byte, m *meta) (string, uint64, error) {
	for try := 0; ; try++ {
		name := m.temp
		if name == "" {
			name = l.tempName()
		}
		f, err := d.r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) && try+1 < tempTries && m.temp == "" {
			continue
		}
		if errors.Is(err, fs.ErrExist) {
			return "", 0, tempTaken(name, m.temp != "", try+1, err)
		}
		if err != nil {
			return "", 0, err
		}
		var ino uint64 // compared only after an exchange, which Windows lacks
		if id, _, err := fileInfo(f); err == nil {
			ino = id.ino
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil && m.perm&0o200 == 0 {
			err = d.r.Chmod(name, fs.FileMode(m.perm).Perm())
		}
		if err != nil {
			d.unlink(name)
			return "", 0, err
		}
		return name, ino, nil
	}
}
