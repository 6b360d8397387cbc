// Package policy decides the rules every mutation passes, from what the
// caller tells it, and words the refusals and warnings of the input guard.
//
// The package must do no IO and keep no state. It never opens, stats or
// hashes a file, and never words the refusals of rules 5-7 (the facade
// does, from the Decision); the facade (package stet) resolves paths,
// reads files, keeps each session's observations and asks this package to
// decide. What lives here and what lives elsewhere, rule by rule (SPEC
// section 4; checked in this order, the first failing rule refuses, a
// refused call changes nothing):
//
//  1. Arguments (invalid): not here. Package tools checks them (Decode for
//     JSON, Validate on each argument type), for every surface.
//  2. Confinement (outside, not_regular): not here. The fsys backend is the
//     floor; the facade narrows a session to a client's roots.
//  3. Effects (read_only): Effects and ParseEffects (modes.go); the facade
//     (its gate.go) refuses a mutating tool in read-only mode, and the
//     surfaces leave those tools out of their tool lists.
//  4. Protected paths (protected): Rules.Protected (rules.go), default
//     every .git entry at any depth; Rules.Denied hides files from every
//     tool; both with gitignore semantics (glob.CoversFold), in every
//     spelling a filesystem may take for a name (case, Unicode form:
//     glob.Fold) and both always covering stet's state directory
//     (Rules.State). The facade (gate.go, rootrules.go) checks them on
//     every name a path goes by (spelled, each symlink, resolved) and on
//     everything under a moved directory.
//     5-9 below are the policy gate that Options.NoGate drops
//     (Facts.NoGate, the one switch); 2-4 are the floor that stays.
//
// Rules 5-8 are decided in one place, Decide (decide.go), in order, from
// the Facts the facade gathered for one target of one call (a move: the
// old name, then the new); every mutating tool asks it, and the facade
// words the refusal from the Decision's Reason:
//
//  5. Observation (not_read): the session observed the file (or, for a
//     create, its nearest existing ancestor directory; for a directory
//     move, the directory). The facade shows the frame or listing.
//  6. Freshness (changed): the observed version (or expected_version) is
//     the file's version now; the provider's compare-and-swap proves it
//     again at the swap (conflict). The call's edits are matched next
//     (Unmatched), before binding, which needs the regions a match finds.
//  7. Binding (not_seen): CheckBinding (binding.go), with the mode
//     (Binding, ParseBinding), the session's Observation and the byte
//     regions the call replaces. The facade carries seen ranges through
//     the session's own mutations with Ranges.Carry (ranges.go) and words
//     the refusal in lines.
//  8. Input guard (input): a declared input (inputs are cleaned by
//     NormalizeInputs) is edit-only; a whole-file replace of a file the
//     request names, or a create where the session removed such a file,
//     needs overwrite unless the request asks for it (GuardReplace and
//     NamesFile in inputs.go, AsksToReplace in asks.go); InputRefusal and
//     RequestRefusal word it.
//  9. Warn and save: ReplacedMessage, DeletedMessage, Alarm (warn.go),
//     Count and Counts (counts.go) word the result of a replace or delete
//     of a file the session did not create; the facade saves the previous
//     bytes.
package policy
