package journal

import "io"

// SetRand replaces the source of j's random names (its liveness lock), so
// a test knows the name in advance.
func SetRand(j *Journal, r io.Reader) { j.rand = r }
