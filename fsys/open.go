package fsys

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// ErrTooLarge: a file is larger than the caller's bound and was not read.
var ErrTooLarge = errors.New("too large")

// TooLargeError is the cause of an ErrTooLarge *PathError: the size found
// and the bound it exceeds.
type TooLargeError struct {
	Size int64 // bytes in the file (at least Max+1 when the file grew while read)
	Max  int64 // the caller's bound
}

// Error returns the message, as the error interface asks.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%d bytes, over the %d-byte bound", e.Size, e.Max)
}

// Opener is an optional capability: Open opens the regular file at name for
// reading, through the same confined walk as ReadFile, and describes what it
// opened (the Info of the open file, not of a name that may change after).
// The caller reads it sequentially and closes it. A special file fails with
// ErrNotRegular without blocking.
//
// The bytes read are those of one file: a commit that swaps a new file in
// does not change what an open reader returns.
type Opener interface {
	Open(name string) (io.ReadCloser, Info, error)
}

// Open opens name with p's Opener, or falls back to ReadFile (holding the
// whole file) and Stat.
func Open(p Provider, name string) (io.ReadCloser, Info, error) {
	if o, ok := p.(Opener); ok {
		return o.Open(name)
	}
	data, err := p.ReadFile(name)
	if err != nil {
		return nil, Info{}, err
	}
	info, err := p.Stat(name)
	if err != nil {
		return nil, Info{}, err
	}
	info.Size = int64(len(data))
	return io.NopCloser(bytes.NewReader(data)), info, nil
}

// ReadFileMax returns the bytes of the regular file at name when it holds at
// most max bytes. A larger file fails with ErrTooLarge (wrapping a
// *TooLargeError) after reading at most max+1 of its bytes, or none when
// its size is known first: with an Opener, or from Stat.
func ReadFileMax(p Provider, name string, max int64) ([]byte, error) {
	const op = "read"
	tooLarge := func(size int64) error {
		return E(op, name, ErrTooLarge, &TooLargeError{Size: size, Max: max})
	}
	o, ok := p.(Opener)
	if !ok {
		info, err := p.Stat(name)
		if err == nil && info.Type == TypeFile && info.Size > max {
			return nil, tooLarge(info.Size)
		}
		data, err := p.ReadFile(name)
		if err != nil {
			return nil, err
		}
		if int64(len(data)) > max {
			return nil, tooLarge(int64(len(data)))
		}
		return data, nil
	}
	return readMax(o.Open, name, max, nil)
}

// ReadHeldMax is ReadFileMax of the name h holds, through h.Open.
func ReadHeldMax(h Handle, name string, max int64) ([]byte, error) {
	return ReadHeldMaxInto(h, name, max, nil)
}

// ReadHeldMaxInto is ReadHeldMax reading into a slice from get (length 0,
// capacity at least n), so that a caller can lend memory it reuses; nil
// allocates. The returned bytes may be in that slice or, where the file
// grew while it was read or the provider reads whole files itself, in new
// memory.
func ReadHeldMaxInto(h Handle, name string, max int64, get func(n int) []byte) ([]byte, error) {
	if w, ok := h.(*walking); ok {
		return ReadFileMax(w.p, w.name, max)
	}
	return readMax(func(string) (io.ReadCloser, Info, error) { return h.Open() }, name, max, get)
}

// readMax reads the file open returns for name, refusing one over max.
// get, when not nil, gives the slice to read into.
func readMax(open func(string) (io.ReadCloser, Info, error), name string, max int64, get func(n int) []byte) ([]byte, error) {
	const op = "read"
	tooLarge := func(size int64) error {
		return E(op, name, ErrTooLarge, &TooLargeError{Size: size, Max: max})
	}
	f, info, err := open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info.Size > max {
		return nil, tooLarge(info.Size)
	}
	// One spare byte so a file that did not grow ends with a zero-length
	// read, and a file that grew past max is seen without reading more.
	var data []byte
	if get != nil {
		data = get(int(info.Size) + 1)[:0]
	} else {
		data = make([]byte, 0, info.Size+1)
	}
	for {
		if int64(len(data)) > max {
			return nil, tooLarge(int64(len(data)))
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		room := data[len(data):cap(data)]
		if lim := max + 1 - int64(len(data)); int64(len(room)) > lim {
			room = room[:lim]
		}
		n, err := f.Read(room)
		data = data[:len(data)+n]
		if errors.Is(err, io.EOF) {
			if int64(len(data)) > max {
				return nil, tooLarge(int64(len(data)))
			}
			return data, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", op, name, err)
		}
	}
}
