package engine

import (
	"math/bits"
	"sync"
)

// Bounds of the slices a bufPool lends: below the smallest a new slice
// costs little (the runtime's small spans stay mapped), above the largest
// it is not kept.
const (
	MinBufShift = 18 // 256 KiB
	MaxBufShift = 26 // 64 MiB: a file at the largest edit limit, and its result
)

// bufPool lends the large byte slices an edit reads its file into and
// builds the new text in, one size class per power of two. A new large
// slice costs a page fault per page the first time each page is written
// (the runtime maps fresh memory for it, or zeroes a reused span), which for
// a 10 MiB file is more than reading it; a lent slice comes back with its
// pages mapped. The classes are sync.Pools: the garbage collector empties
// them when the workspace goes quiet, so the memory is not held for ever.
//
// A slice is put back only once nothing refers to it: no result, receipt,
// journal record or goroutine of the call that used it (the caller's
// duty; see Session.Edit).
type BufPool struct {
	classes [MaxBufShift - MinBufShift + 1]sync.Pool
}

// Get returns a slice of length 0 and capacity at least n.
func (p *BufPool) Get(n int) []byte {
	if p == nil || n < 1<<MinBufShift || n > 1<<MaxBufShift {
		return make([]byte, 0, max(n, 0))
	}
	k := bits.Len(uint(n - 1)) // the smallest class that holds n
	if v, ok := p.classes[k-MinBufShift].Get().(*[]byte); ok {
		return (*v)[:0]
	}
	return make([]byte, 0, 1<<k)
}

// Put takes back b, which Get returned and nothing refers to any more.
// Slices outside the classes' bounds are left to the garbage collector.
func (p *BufPool) Put(b []byte) {
	c := cap(b)
	if p == nil || c < 1<<MinBufShift {
		return
	}
	k := bits.Len(uint(c)) - 1 // the largest class b holds
	if k > MaxBufShift {
		return
	}
	b = b[:0]
	p.classes[k-MinBufShift].Put(&b)
}
