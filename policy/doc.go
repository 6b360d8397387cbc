// Package policy decides the rules every mutation passes, from what the
// caller tells it, and words the refusals and warnings of the input guard.
//
// The package does no IO and keeps no state. It never opens, stats or hashes
// a file; the facade (package stet) resolves paths, reads files, keeps each
// session's observations and asks this package to decide. What lives here
// and what lives elsewhere, rule by rule (SPEC section 4; checked in this
// order, the first failing rule refuses, a refused call changes nothing):
//
//  1. Arguments (invalid): not here. Package tools checks them (Decode for
//     JSON, Validate on each argument type), for every surface.
//  2. Confinement (outside, not_regular): not here. The fsys backend is the
//     floor; the facade narrows a session to a client's roots.
//  3. Effects (read_only): Effects and ParseEffects; the facade refuses a
//     mutating tool in read-only mode, and the surfaces leave those tools
//     out of their tool lists.
//  4. Protected paths (protected): Rules.Protected, default every .git
//     entry at any depth (case-insensitive); Rules.Denied hides files from
//     every tool; both with gitignore semantics (glob.Covers) and both
//     always covering stet's state directory (Rules.State). The facade
//     checks them on every name a path goes by (spelled, each symlink,
//     resolved) and on everything under a moved directory.
//     5-9 below are the policy gate that Options.NoGate drops; 2-4 are the
//     floor that stays.
//  5. Observation (not_read): the facade checks that the session observed
//     the file (or, for a create, its parent directory).
//  6. Freshness (changed): the facade compares the observed version with
//     the file's version under the per-file lock, and the provider's
//     compare-and-swap proves it again at the swap (conflict).
//  7. Binding (not_seen): CheckBinding, with the mode (Binding, ParseBinding),
//     the session's Observation and the byte regions the call replaces. The
//     facade carries seen ranges through the session's own mutations with
//     Ranges.Carry and words the refusal in lines.
//  8. Input guard (input): GuardReplace, which the facade calls for a
//     whole-file replace of an existing non-empty file the session did not
//     create, telling it whether the file is a declared input (inputs are
//     cleaned by NormalizeInputs) and the pinned request; it uses NamesFile
//     and AsksToReplace, and words InputRefusal and RequestRefusal.
//  9. Warn and save: ReplacedMessage, DeletedMessage, Alarm, Count and
//     Counts word the result of a replace or delete of a file the session
//     did not create; the facade saves the previous bytes.
package policy
