// Package policy is the gate every mutation passes: it decides, from what
// the caller tells it, whether a call may go ahead, and words the refusals
// and warnings of the input guard.
//
// The package does no IO and keeps no state. It never opens, stats or hashes
// a file; the facade (package stet) observes files, keeps each session's
// observations, and asks this package to decide. Freshness (rule 6) is
// settled by the provider's compare-and-swap under the per-file lock, not
// here, and confinement (rule 2) is a floor below policy in fsys/local.
//
// The rules of SPEC section 4, checked in this order; the first failing rule
// refuses, and a refused call changes nothing on disk:
//
//  1. Arguments (invalid): decoded and checked by package tools.
//  2. Confinement (outside, not_regular): enforced by the fsys backend.
//  3. Effects (read_only): Effects, ParseEffects; in read-only mode the
//     mutating tools are refused and left out of the tool list.
//  4. Protected paths (protected): Rules.Protected, default every .git
//     entry at any depth (case-insensitive); Rules.Denied hides files from
//     every tool; both with gitignore semantics (glob.Covers) and both
//     always covering stet's state directory (Rules.State). The facade
//     checks them on every name a path goes by (spelled, each symlink,
//     resolved) and on everything under a moved directory.
//     6-9 below are the policy gate that Options.NoGate drops; 2-4 are the
//     floor that stays.
//  5. Observation (not_read): the facade checks that the session observed
//     the file (or, for a create, its parent directory).
//  6. Freshness (changed): the version now must equal the observed version;
//     decided by the provider's compare-and-swap.
//  7. Binding (not_seen): CheckBinding with the mode (Binding), the
//     session's Observation and the byte regions the call replaces;
//     Observation.Carry (Ranges.Carry) moves seen ranges through the
//     session's own mutations.
//  8. Input guard (input): on a whole-file replace of an existing non-empty
//     file the session did not create, GuardReplace (NamesFile,
//     AsksToReplace, InputRefusal, RequestRefusal) with the declared inputs
//     (NormalizeInputs) and the pinned request.
//  9. Warn and save: ReplacedMessage, DeletedMessage, Alarm and Counts word
//     the result of a replace or delete of a file the session did not create.
package policy
