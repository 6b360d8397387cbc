package stall

import (
	"strings"
	"sync"
	"testing"
)

var (
	read     = Call{}
	landed   = Call{Mutating: true, Landed: true}
	refused  = Call{Mutating: true, Refused: true}
	dryRun   = Call{Mutating: true}
	fanOut   = Call{FanOut: true}
	oddCombo = Call{Mutating: true, Landed: true, Refused: true} // refused wins
)

func TestStep(t *testing.T) {
	type step struct {
		calls []Call
		want  Decision
	}
	tests := []struct {
		name      string
		threshold int
		message   string
		steps     []step
	}{
		{"notice at N, cut from 2N", 3, "look at it", []step{
			{[]Call{read}, Decision{Quiet: 1}},
			{[]Call{read, read}, Decision{Quiet: 2}},
			{[]Call{read}, Decision{Notice: true, Quiet: 3}},
			{[]Call{read}, Decision{Quiet: 4}},
			{[]Call{read}, Decision{Quiet: 5}},
			{[]Call{read}, Decision{Cut: true, Quiet: 6}},
			{nil, Decision{Cut: true, Quiet: 7}},
		}},
		{"refused and dry-run calls are read-only", 2, "", []step{
			{[]Call{refused}, Decision{Quiet: 1}},
			{[]Call{dryRun, oddCombo}, Decision{Notice: true, Quiet: 2}},
		}},
		{"a landed mutation resets", 2, "", []step{
			{[]Call{read}, Decision{Quiet: 1}},
			{[]Call{read, landed, refused}, Decision{}},
			{[]Call{read}, Decision{Quiet: 1}},
			{[]Call{read}, Decision{Notice: true, Quiet: 2}},
			{[]Call{landed}, Decision{}},
			{[]Call{read}, Decision{Quiet: 1}},
			{[]Call{read}, Decision{Notice: true, Quiet: 2}}, // a new stall gets a new notice
		}},
		{"a fan-out resets", 2, "", []step{
			{[]Call{read}, Decision{Quiet: 1}},
			{[]Call{read}, Decision{Notice: true, Quiet: 2}},
			{[]Call{fanOut}, Decision{}},
			{[]Call{read}, Decision{Quiet: 1}},
		}},
		{"repair request halves N rounding up", 5, "tests FAILED again", []step{
			{[]Call{read}, Decision{Quiet: 1}},
			{[]Call{read}, Decision{Quiet: 2}},
			{[]Call{read}, Decision{Notice: true, Quiet: 3}},
			{[]Call{read}, Decision{Quiet: 4}},
			{[]Call{read}, Decision{Quiet: 5}},
			{[]Call{read}, Decision{Cut: true, Quiet: 6}},
		}},
		{"disabled", 0, "FAIL", []step{
			{[]Call{read}, Decision{Quiet: 1}},
			{[]Call{read}, Decision{Quiet: 2}},
			{[]Call{read}, Decision{Quiet: 3}},
		}},
		{"default when negative", -1, "", []step{
			{nil, Decision{Quiet: 1}}, {nil, Decision{Quiet: 2}}, {nil, Decision{Quiet: 3}},
			{nil, Decision{Quiet: 4}}, {nil, Decision{Quiet: 5}}, {nil, Decision{Notice: true, Quiet: 6}},
		}},
		{"threshold 1 halved stays 1", 1, "failing", []step{
			{[]Call{read}, Decision{Notice: true, Quiet: 1}},
			{[]Call{read}, Decision{Cut: true, Quiet: 2}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(tt.threshold)
			c.Turn(tt.message)
			for i, s := range tt.steps {
				if got := c.Step(s.calls); got != s.want {
					t.Fatalf("step %d: Step = %+v, want %+v", i+1, got, s.want)
				}
			}
		})
	}
}

func TestTurnResets(t *testing.T) {
	c := New(2)
	c.Turn("it is failing")
	if c.Threshold() != 1 {
		t.Fatalf("repair turn threshold = %d, want 1", c.Threshold())
	}
	c.Step(nil)
	c.Step(nil)
	c.Turn("now add a feature")
	if c.Threshold() != 2 {
		t.Errorf("next turn threshold = %d, want the configured 2", c.Threshold())
	}
	if d := c.Step(nil); d != (Decision{Quiet: 1}) {
		t.Errorf("first step of a new turn = %+v, want Quiet 1", d)
	}
	// A counter used without Turn works with the configured threshold.
	if d := New(1).Step(nil); d != (Decision{Notice: true, Quiet: 1}) {
		t.Errorf("Step without Turn = %+v", d)
	}
}

func TestRepair(t *testing.T) {
	tests := []struct {
		msg  string
		want bool
	}{
		{"--- FAIL: TestParse (0.00s)", true},
		{"FAIL", true},
		{"The build failed.", true},
		{"FAILED tests/test_x.py::test_a", true},
		{"CI is Failing on main", true},
		{"fail", false},      // FAIL is case-sensitive
		{"Fail fast", false}, // likewise
		{"FAILS", false},
		{"unfailing", false},
		{"TEST_FAIL", false},
		{"failure", false},
		{"fails", false},
		{"add a button", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := Repair(tt.msg); got != tt.want {
			t.Errorf("Repair(%q) = %v, want %v", tt.msg, got, tt.want)
		}
	}
}

func TestNoticeText(t *testing.T) {
	got := NoticeText(6)
	for _, want := range []string{"6 steps", "changed nothing", "make the change", "reply"} {
		if !strings.Contains(got, want) {
			t.Errorf("NoticeText(6) = %q, missing %q", got, want)
		}
	}
	if got := NoticeText(1); !strings.Contains(got, "last 1 step changed") {
		t.Errorf("NoticeText(1) = %q, want the singular", got)
	}
}

func TestConcurrentUse(t *testing.T) {
	c := New(100)
	var wg sync.WaitGroup
	notices := make(chan bool, 400)
	for range 4 {
		wg.Go(func() {
			for range 100 {
				notices <- c.Step([]Call{read}).Notice
			}
		})
	}
	wg.Wait()
	close(notices)
	n := 0
	for got := range notices {
		if got {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d notices over 400 quiet steps with N=100, want exactly 1", n)
	}
}

func TestPhaseOf(t *testing.T) {
	for _, tc := range []struct {
		steps, n int
		want     string
	}{
		{0, 3, PhaseQuiet}, {2, 3, PhaseQuiet}, {3, 3, PhaseNotice}, {5, 3, PhaseNotice}, {6, 3, PhaseCut}, {60, 3, PhaseCut},
		{1, 1, PhaseNotice}, {2, 1, PhaseCut}, {100, 0, PhaseQuiet}, {5, -1, PhaseQuiet},
	} {
		if got := PhaseOf(tc.steps, tc.n); got != tc.want {
			t.Errorf("PhaseOf(%d, %d) = %q, want %q", tc.steps, tc.n, got, tc.want)
		}
	}
	// It agrees with Step's decisions.
	c := New(3)
	for i := 1; i <= 8; i++ {
		d := c.Step(nil)
		if got := PhaseOf(d.Quiet, 3); (got == PhaseCut) != d.Cut || d.Notice && got != PhaseNotice {
			t.Errorf("step %d: phase %q, decision %+v", i, got, d)
		}
	}
}
