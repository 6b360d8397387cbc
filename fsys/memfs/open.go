package memfs

import (
	"bytes"
	"io"

	"github.com/stet-dev/stet/fsys"
)

var _ fsys.Opener = (*FS)(nil)

// Open returns a reader of the regular file at name as it is now; later
// changes to the file do not affect it (a commit replaces a node's bytes,
// it never writes into them).
func (m *FS) Open(name string) (io.ReadCloser, fsys.Info, error) {
	const op = "read"
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.walk(op, name, true)
	if err != nil {
		return nil, fsys.Info{}, err
	}
	if err := r.NeedFile(op, name); err != nil {
		return nil, fsys.Info{}, err
	}
	n := nodeOf(r)
	return io.NopCloser(bytes.NewReader(n.data)), infoOf(r.Info.Name(), n), nil
}
