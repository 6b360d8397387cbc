package local

import "time"

// SetProcessStart replaces how l learns when a process started.
func SetProcessStart(l *FS, f func(pid int) (time.Time, bool)) { l.procStart = f }

// ProcessStart is processStart, for tests.
var ProcessStart = processStart

// OneEntry is oneEntry, for tests.
var OneEntry = oneEntry
