package policy

import "testing"

// seenAll is an observation of a 10-byte file read whole at version v1.
var seenAll = Observation{Version: "v1", Seen: Ranges{{0, 10}}, Whole: true, Size: 10}

// ok returns facts of op on a 10-byte file that pass every rule: observed
// and read whole at its current version, not declared, named by no
// request.
func ok(op Op) Facts {
	return Facts{Op: op, Observed: true, Version: "v1", Observation: seenAll, Binding: BindSeen, Path: "data/sales.csv"}
}

func with(f Facts, change func(*Facts)) Facts {
	change(&f)
	return f
}

// TestDecideOrder runs each situation through Decide and demands the rule
// and clause that refuses first (SPEC section 4: the first failing rule
// refuses).
func TestDecideOrder(t *testing.T) {
	names := "Tidy data/sales.csv"
	cases := []struct {
		name   string
		f      Facts
		want   Reason // 0: no refusal
		rule   int
		kind   string
		gapEnd int
	}{
		{name: "edit passes", f: ok(OpEdit)},
		{name: "replace passes", f: ok(OpReplace)},
		{name: "delete passes", f: ok(OpDelete)},
		{name: "move from passes", f: ok(OpMoveFrom)},
		{name: "create passes", f: Facts{Op: OpCreate, Observed: true}},
		{name: "move dir passes", f: Facts{Op: OpMoveDir, Observed: true}},

		{name: "edit not observed", f: with(ok(OpEdit), func(f *Facts) { f.Observed = false }), want: NotObserved, rule: 5, kind: "not_read"},
		{name: "delete not observed", f: with(ok(OpDelete), func(f *Facts) { f.Observed = false }), want: NotObserved, rule: 5, kind: "not_read"},
		{name: "create parent not listed", f: Facts{Op: OpCreate}, want: ParentNotListed, rule: 5, kind: "not_read"},
		{name: "move dir not listed", f: Facts{Op: OpMoveDir}, want: DirNotListed, rule: 5, kind: "not_read"},

		// Rule 5 comes before every later rule.
		{name: "not observed before stale", f: with(ok(OpEdit), func(f *Facts) { f.Observed, f.Version = false, "v2" }), want: NotObserved, rule: 5, kind: "not_read"},
		{name: "declared create, parent not listed", f: Facts{Op: OpCreate, Declared: true}, want: ParentNotListed, rule: 5, kind: "not_read"},
		{name: "expected on create, parent not listed", f: Facts{Op: OpCreate, ExpectedVersion: "v1"}, want: ParentNotListed, rule: 5, kind: "not_read"},
		{name: "move dir with input, not listed", f: Facts{Op: OpMoveDir, DeclaredUnder: "a/in.txt"}, want: DirNotListed, rule: 5, kind: "not_read"},

		{name: "stale", f: with(ok(OpEdit), func(f *Facts) { f.Version = "v2" }), want: Stale, rule: 6, kind: "changed"},
		{name: "stale move from", f: with(ok(OpMoveFrom), func(f *Facts) { f.Version = "v2" }), want: Stale, rule: 6, kind: "changed"},
		{name: "expected not observed", f: with(ok(OpReplace), func(f *Facts) { f.ExpectedVersion = "v0" }), want: ExpectedNotObserved, rule: 6, kind: "changed"},
		{name: "expected observed, stale", f: with(ok(OpReplace), func(f *Facts) { f.ExpectedVersion, f.Version = "v1", "v2" }), want: Stale, rule: 6, kind: "changed"},
		{name: "expected observed", f: with(ok(OpReplace), func(f *Facts) { f.ExpectedVersion = "v1" })},
		{name: "expected on create", f: Facts{Op: OpCreate, Observed: true, ExpectedVersion: "v1"}, want: ExpectedMissing, rule: 6, kind: "changed"},
		{name: "stale before declared", f: with(ok(OpDelete), func(f *Facts) { f.Version, f.Declared = "v2", true }), want: Stale, rule: 6, kind: "changed"},
		{name: "expected on create before declared", f: Facts{Op: OpCreate, Observed: true, ExpectedVersion: "v1", Declared: true}, want: ExpectedMissing, rule: 6, kind: "changed"},

		{name: "unmatched", f: with(ok(OpEdit), func(f *Facts) { f.Unmatched = true }), want: Unmatched},
		{name: "stale before unmatched", f: with(ok(OpEdit), func(f *Facts) { f.Unmatched, f.Version = true, "v2" }), want: Stale, rule: 6, kind: "changed"},
		{name: "unmatched before unseen", f: with(ok(OpEdit), func(f *Facts) {
			f.Unmatched, f.Observation = true, Observation{Version: "v1", Seen: Ranges{{0, 2}}, Size: 10}
		}), want: Unmatched},
		{name: "unmatched only for edits", f: with(ok(OpReplace), func(f *Facts) { f.Unmatched = true })},

		{name: "edit unseen region", f: with(ok(OpEdit), func(f *Facts) {
			f.Observation, f.Regions = Observation{Version: "v1", Seen: Ranges{{0, 2}}, Size: 10}, []Range{{4, 6}}
		}), want: Unseen, rule: 7, kind: "not_seen", gapEnd: 6},
		{name: "edit seen region", f: with(ok(OpEdit), func(f *Facts) {
			f.Observation, f.Regions = Observation{Version: "v1", Seen: Ranges{{0, 6}}, Size: 10}, []Range{{4, 6}}
		})},
		{name: "replace partly seen", f: with(ok(OpReplace), func(f *Facts) {
			f.Observation = Observation{Version: "v1", Seen: Ranges{{0, 6}}, Size: 10}
		}), want: Unseen, rule: 7, kind: "not_seen", gapEnd: 10},
		{name: "delete partly seen", f: with(ok(OpDelete), func(f *Facts) {
			f.Observation = Observation{Version: "v1", Seen: Ranges{{0, 6}}, Size: 10}
		})},
		{name: "unseen before declared", f: with(ok(OpReplace), func(f *Facts) {
			f.Observation, f.Declared = Observation{Version: "v1", Seen: Ranges{{0, 6}}, Size: 10}, true
		}), want: Unseen, rule: 7, kind: "not_seen", gapEnd: 10},

		{name: "declared replace", f: with(ok(OpReplace), func(f *Facts) { f.Declared = true }), want: Declared, rule: 8, kind: "input"},
		{name: "declared replace with overwrite", f: with(ok(OpReplace), func(f *Facts) { f.Declared, f.Overwrite = true, true }), want: Declared, rule: 8, kind: "input"},
		{name: "declared empty created", f: with(ok(OpReplace), func(f *Facts) { f.Declared, f.Empty, f.Created = true, true, true }), want: Declared, rule: 8, kind: "input"},
		{name: "declared delete", f: with(ok(OpDelete), func(f *Facts) { f.Declared = true }), want: Declared, rule: 8, kind: "input"},
		{name: "declared move from", f: with(ok(OpMoveFrom), func(f *Facts) { f.Declared = true }), want: Declared, rule: 8, kind: "input"},
		{name: "declared create", f: Facts{Op: OpCreate, Observed: true, Declared: true}, want: Declared, rule: 8, kind: "input"},
		{name: "declared edit", f: with(ok(OpEdit), func(f *Facts) { f.Declared = true })},
		{name: "declared edit moving away", f: with(ok(OpEdit), func(f *Facts) { f.Declared, f.MovesAway = true, true }), want: Declared, rule: 8, kind: "input"},
		{name: "move dir with input", f: Facts{Op: OpMoveDir, Observed: true, DeclaredUnder: "a/in.txt"}, want: DeclaredUnder, rule: 8, kind: "input"},
		{name: "move dir declared itself", f: Facts{Op: OpMoveDir, Observed: true, Declared: true}},

		{name: "requested replace", f: with(ok(OpReplace), func(f *Facts) { f.Request = names }), want: Requested, rule: 8, kind: "input"},
		{name: "requested replace, overwrite", f: with(ok(OpReplace), func(f *Facts) { f.Request, f.Overwrite = names, true })},
		{name: "requested replace, asked", f: with(ok(OpReplace), func(f *Facts) { f.Request = "Rewrite data/sales.csv" })},
		{name: "requested replace, empty", f: with(ok(OpReplace), func(f *Facts) { f.Request, f.Empty = names, true })},
		{name: "requested replace, created", f: with(ok(OpReplace), func(f *Facts) { f.Request, f.Created = names, true })},
		{name: "requested edit", f: with(ok(OpEdit), func(f *Facts) { f.Request = names })},
		{name: "requested delete", f: with(ok(OpDelete), func(f *Facts) { f.Request = names })},
		{name: "requested create", f: Facts{Op: OpCreate, Observed: true, Request: names, Path: "data/sales.csv"}},
		{name: "requested recreate", f: Facts{Op: OpCreate, Observed: true, Request: names, Path: "data/sales.csv", Removed: true}, want: Requested, rule: 8, kind: "input"},
		{name: "requested recreate, overwrite", f: Facts{Op: OpCreate, Observed: true, Request: names, Path: "data/sales.csv", Removed: true, Overwrite: true}},
		{name: "declared before requested", f: with(ok(OpReplace), func(f *Facts) { f.Request, f.Declared = names, true }), want: Declared, rule: 8, kind: "input"},

		// NoGate is the one switch: nothing refuses but edits that do not
		// apply.
		{name: "no gate", f: Facts{Op: OpEdit, NoGate: true, Declared: true, Version: "v2"}},
		{name: "no gate create", f: Facts{Op: OpCreate, NoGate: true, Declared: true, ExpectedVersion: "v1"}},
		{name: "no gate move dir", f: Facts{Op: OpMoveDir, NoGate: true}},
		{name: "no gate unmatched", f: Facts{Op: OpEdit, NoGate: true, Unmatched: true}, want: Unmatched},
		{name: "no gate replace unmatched", f: Facts{Op: OpReplace, NoGate: true, Unmatched: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Decide(c.f)
			if c.want == 0 {
				if d != nil {
					t.Fatalf("refused: %+v", *d)
				}
				return
			}
			if d == nil {
				t.Fatalf("not refused, want reason %d (rule %d)", c.want, c.rule)
			}
			if d.Reason != c.want || d.Rule != c.rule || d.Kind != c.kind {
				t.Fatalf("got reason %d rule %d kind %q, want reason %d rule %d kind %q", d.Reason, d.Rule, d.Kind, c.want, c.rule, c.kind)
			}
			if c.gapEnd != 0 && d.Gap.End != c.gapEnd {
				t.Fatalf("gap %v, want one ending at %d", d.Gap, c.gapEnd)
			}
		})
	}
}
