package local

// lockBoth takes the directory lock of first, then of second (the caller
// puts them in the one global order), and returns what releases both, in
// the reverse order. If the second cannot be taken, the first is released.
func (l *FS) lockBoth(first, second *dirHandle) (func(), error) {
	u1, err := l.lock(first)
	if err != nil {
		return nil, err
	}
	u2, err := l.lock(second)
	if err != nil {
		u1()
		return nil, err
	}
	return func() { u2(); u1() }, nil
}
