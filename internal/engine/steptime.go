package engine

import (
	"sync"
	"time"
)

// Names of the commit's steps as Hooks.Step reports them, in the order a
// change takes them. "save", "intent" and "temp" overlap (the swap waits
// for all three); "wait" is how long the swap waited for the first two
// after the temp file was durable.
const (
	StepRead     = "read"     // before the commit: the name resolved and locked, the file read
	StepPlan     = "plan"     // before the commit: hashes, checks, the rules, the change built
	stepRelease  = "release"  // after the result: the displaced file's removal, the store closed
	stepSave     = "save"     // the bytes the change takes away, kept as a blob
	stepIntent   = "intent"   // the write-ahead intent line and its fsync
	stepTemp     = "temp"     // the new bytes in their temp file, fsynced
	stepWait     = "wait"     // the swap waiting for save and intent
	stepSwap     = "swap"     // the compare-and-swap (rename, compare)
	stepDirSync  = "dirsync"  // the directory fsync after the swap
	stepReadback = "readback" // the readback and the receipt's verification
	stepReceipt  = "receipt"  // the receipt line, the observation, the done record
	stepCommit   = "commit"   // the whole commit, from the plan to the result
)

// stepClock times the steps of a commit for Hooks.Step. It is nil unless
// the hook is set, and every method of a nil clock does nothing, so the
// production path pays one nil test per step. The provider's own steps
// (temp file, swap, directory fsync) are told apart by the provider's
// BeforeSwap and AfterSwap hooks, which mark this clock; marks are the
// workspace's, so the times are exact for one commit at a time (a
// benchmark), blurred when commits overlap.
type stepClock struct {
	report func(step string, d time.Duration)

	mu                    sync.Mutex
	beforeSwap, afterSwap time.Time
}

func newStepClock(report func(string, time.Duration)) *stepClock {
	if report == nil {
		return nil
	}
	return &stepClock{report: report}
}

// start returns the time a step starts (zero on a nil clock).
func (k *stepClock) Start() time.Time {
	if k == nil {
		return time.Time{}
	}
	return time.Now()
}

// done reports step as taking from t0 to now.
func (k *stepClock) Done(step string, t0 time.Time) {
	if k != nil {
		k.report(step, time.Since(t0))
	}
}

// mark records the provider's BeforeSwap (before true) or AfterSwap.
func (k *stepClock) mark(before bool) {
	if k == nil {
		return
	}
	now := time.Now()
	k.mu.Lock()
	if before {
		k.beforeSwap = now
	} else {
		k.afterSwap = now
	}
	k.mu.Unlock()
}

// provider reports the provider's steps of a call that ran from t0 to now:
// up to BeforeSwap the temp file (less the wait for ready, reported apart),
// then the swap up to AfterSwap, then the directory fsync. A provider that
// did not mark (a memory backend, a move) is reported as one swap.
func (k *stepClock) provider(t0 time.Time, wait time.Duration) {
	if k == nil {
		return
	}
	end := time.Now()
	k.mu.Lock()
	before, after := k.beforeSwap, k.afterSwap
	k.beforeSwap, k.afterSwap = time.Time{}, time.Time{}
	k.mu.Unlock()
	if before.Before(t0) || after.Before(before) {
		k.report(stepSwap, end.Sub(t0))
		return
	}
	k.report(stepTemp, before.Sub(t0)-wait)
	k.report(stepWait, wait)
	k.report(stepSwap, after.Sub(before))
	k.report(stepDirSync, end.Sub(after))
}
