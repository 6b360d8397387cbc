package journal

import "io"

// SetRand replaces the source of j's random names (its liveness lock), so
// a test knows the name in advance.
func SetRand(j *Journal, r io.Reader) { j.rand = r }

// FlushSynced runs in the caller what the background flush does before a
// run of lazy appends needs the log synced: it writes the index lines
// whose log lines a sync already covered, fsyncs them and moves the
// watermark.
func FlushSynced(j *Journal) error { return j.flushWith(false) }

// SetKeptMax sets how many bytes of index lines SessionFrom keeps decoded
// between its check and its calls of fn (0: none, every line is decoded
// twice), so a test can run both paths.
func SetKeptMax(j *Journal, n int64) { j.keptMax = n }

// LagBytes is how far j's watermark is behind the log's end.
func LagBytes(j *Journal) int64 { return j.lagBytes() }

// CloseLagBytes is closeLagBytes.
const CloseLagBytes = closeLagBytes
