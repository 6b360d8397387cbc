package stall

import (
	"fmt"
	"strings"
	"sync"
	"unicode"
)

// DefaultThreshold is the threshold New uses for a negative argument.
const DefaultThreshold = 6

// Counter counts one session's consecutive quiet steps. It is safe for
// concurrent use.
type Counter struct {
	mu        sync.Mutex
	base      int // the configured threshold; 0 disables
	threshold int // the current turn's threshold
	quiet     int // consecutive steps that changed nothing
}

// New returns a Counter with threshold n: DefaultThreshold when n is
// negative, disabled when n is 0.
func New(n int) *Counter {
	if n < 0 {
		n = DefaultThreshold
	}
	return &Counter{base: n, threshold: n}
}

// Turn starts a turn with the user's (or orchestrator's) message: the count
// resets, and the threshold is the configured one, halved (rounding up)
// when the message is a repair request (see Repair).
func (c *Counter) Turn(message string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.quiet = 0
	c.threshold = c.base
	if Repair(message) {
		c.threshold = (c.base + 1) / 2
	}
}

// Threshold returns the current turn's threshold N (0: disabled).
func (c *Counter) Threshold() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.threshold
}

// Call is what the counter needs to know of one tool call of a step.
type Call struct {
	Mutating bool // the tool can change files (edit, write, patch, move, delete, mkdir, undo)
	Landed   bool // the call altered the tree: bytes or names changed (not refused, not a dry run, not a no-op such as mkdir of an existing directory)
	Refused  bool // the call was refused
	FanOut   bool // the call handed work to other agents
}

// changes reports whether the call counts as progress.
func (c Call) changes() bool {
	return c.FanOut || c.Mutating && c.Landed && !c.Refused
}

// Decision is what Step decides for the next step.
type Decision struct {
	Notice bool // give the next step the stall notice (NoticeText); true once, when Quiet reaches N
	Cut    bool // cut the next step's tool set to fan-out and terminal tools; true from Quiet 2N on
	Quiet  int  // consecutive steps that changed nothing, this one included
}

// Step records one step's calls and returns the decision for the next
// step. A step changes something when one of its calls is a fan-out or a
// landed mutation; that resets the count. Any other step — only reads,
// only refused or dry-run calls, or no calls at all — adds one. With the
// counter disabled, Quiet is still counted but Notice and Cut stay false.
func (c *Counter) Step(calls []Call) Decision {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, call := range calls {
		if call.changes() {
			c.quiet = 0
			return Decision{}
		}
	}
	c.quiet++
	n := c.threshold
	if n <= 0 {
		return Decision{Quiet: c.quiet}
	}
	return Decision{Notice: c.quiet == n, Cut: c.quiet >= 2*n, Quiet: c.quiet}
}

// The phases of a stall, as refusal details report them ({steps, phase}).
const (
	PhaseQuiet  = "quiet"  // under N quiet steps: nothing to do
	PhaseNotice = "notice" // N quiet steps or more: the notice was given
	PhaseCut    = "cut"    // 2N quiet steps or more: the tool set is cut
)

// PhaseOf returns the phase of a session that has gone steps quiet steps
// under threshold n. A disabled counter (n <= 0) is always quiet.
func PhaseOf(steps, n int) string {
	switch {
	case n <= 0 || steps < n:
		return PhaseQuiet
	case steps < 2*n:
		return PhaseNotice
	}
	return PhaseCut
}

// Repair reports whether message asks to repair a failure: it holds the
// whole word FAIL (upper case only), or failed or failing in any letter
// case. Words are runs of letters, digits and "_".
func Repair(message string) bool {
	for _, w := range strings.FieldsFunc(message, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	}) {
		if w == "FAIL" || strings.EqualFold(w, "failed") || strings.EqualFold(w, "failing") {
			return true
		}
	}
	return false
}

// NoticeText is the notice given to the model after n steps in a row that
// changed nothing (n is the threshold N; the tool set is cut n steps later).
func NoticeText(n int) string {
	return fmt.Sprintf("stet: your last %s changed nothing. Stop reviewing: make the change now, or reply "+
		"with what you found and what blocks you. After %s more without a change, the reading tools are withdrawn.",
		plural(n), plural(n))
}

func plural(n int) string {
	if n == 1 {
		return "1 step"
	}
	return fmt.Sprintf("%d steps", n)
}
