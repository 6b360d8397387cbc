package policy

// Op is what one call does to one of its targets (a name it changes). A
// call with two names (a move) is two targets, asked about in the order
// the call names them: the old name first.
type Op int

const (
	// OpCreate puts a file at a name where none stands: write or a patch's
	// Add File on a new name, and the new name of a move.
	OpCreate Op = iota + 1
	// OpReplace replaces an existing file's bytes wholesale: write over a
	// file, and a move over one (overwrite: true).
	OpReplace
	// OpEdit changes an existing file in place: edit, a patch's Update
	// File.
	OpEdit
	// OpDelete removes an existing file: delete, a patch's Delete File.
	OpDelete
	// OpMoveFrom takes an existing file away from its name: the old name
	// of a file move.
	OpMoveFrom
	// OpMoveDir takes a directory away from its name: the old name of a
	// directory move.
	OpMoveDir
)

// Rule numbers of SPEC section 4 that Decide decides (rules 1-4 are the
// floor the facade applies before it asks: arguments, confinement,
// effects, protected paths).
const (
	RuleObservation = 5 // not_read
	RuleFreshness   = 6 // changed
	RuleBinding     = 7 // not_seen
	RuleInput       = 8 // input
)

// Reason says which clause of a rule refused, so that the facade can word
// the refusal (and, for rule 5, show what the session must see).
type Reason int

const (
	// NotObserved (rule 5): the session has no observation of the file.
	NotObserved Reason = iota + 1
	// ParentNotListed (rule 5): a create, and the nearest existing
	// ancestor directory has not been observed.
	ParentNotListed
	// DirNotListed (rule 5): a directory move, and the directory has not
	// been listed.
	DirNotListed
	// ExpectedMissing (rule 6): expected_version was given for a file
	// that does not exist.
	ExpectedMissing
	// ExpectedNotObserved (rule 6): expected_version is not the version
	// this session observed.
	ExpectedNotObserved
	// Stale (rule 6): the file's version now is not the observed one.
	Stale
	// Unmatched: the call's edits or hunks did not apply to the current
	// bytes. Matching runs after freshness (rule 6) and before binding
	// (rule 7), which needs the regions a match finds; the facade words
	// the refusal (no_match, ambiguous, ...) from its own error.
	Unmatched
	// Unseen (rule 7): the call replaces bytes the session was not shown
	// at this version; Decision.Gap says which.
	Unseen
	// Declared (rule 8): the file is a declared input, edit-only for its
	// session, and the call would replace, recreate, delete or move it.
	Declared
	// DeclaredUnder (rule 8): a directory move would carry a declared
	// input (Facts.DeclaredUnder) away.
	DeclaredUnder
	// Requested (rule 8): the pinned request names the file, does not ask
	// to replace it, and the call would replace it (or put new bytes where
	// a user's file the session removed stood) without overwrite: true.
	Requested
)

// Facts is what the facade gathered about one target of one call, under
// the target's lock, for Decide. Decide reads only the fields its Op
// needs; the facade may leave the others zero.
type Facts struct {
	Op Op
	// NoGate drops rules 5-9 (Options.NoGate): Decide then refuses
	// nothing but edits that do not apply (Unmatched). The floor (rules
	// 1-4) is the facade's and stays.
	NoGate bool

	// Observed: the session has an observation of the existing file (at
	// any version); for OpMoveDir, the directory was listed; for
	// OpCreate, the nearest existing ancestor directory was observed.
	Observed bool
	// Version is the existing file's version now; Observation.Version
	// the one the session observed; ExpectedVersion the call's
	// expected_version ("" when none).
	Version         string
	ExpectedVersion string
	Observation     Observation

	// Unmatched: the call's edits or hunks did not apply (OpEdit).
	Unmatched bool
	// Binding is the binding mode; Regions the preimage byte ranges an
	// OpEdit replaces (an OpReplace replaces the whole file).
	Binding Binding
	Regions []Range

	// Declared: the target is one of the session's declared inputs.
	// MovesAway: an OpEdit that also moves the file to another name (a
	// patch's Move to). DeclaredUnder: for OpMoveDir, a declared input
	// under the directory ("" when none).
	Declared      bool
	MovesAway     bool
	DeclaredUnder string
	// Request is the pinned request (for a worker, its ORIGINAL REQUEST
	// block); Path the target as the call spelled it; Overwrite the
	// call's overwrite: true, when it is a sign the user asked (a move's
	// overwrite is not: every move over a file needs it).
	Request   string
	Path      string
	Overwrite bool
	// Empty: the existing file holds no bytes. Created: the session
	// created the file. Removed: for OpCreate, a non-empty file the
	// session did not create stood at this name until the session
	// deleted or moved it away.
	Empty   bool
	Created bool
	Removed bool
}

// Decision is the first rule of SPEC section 4 that refuses a target: the
// rule's number, the refusal kind ("" for Unmatched: the facade's own
// kind), the clause, and for rule 7 the first gap.
type Decision struct {
	Rule   int
	Kind   string
	Reason Reason
	Gap    Range
}

// Decide checks rules 5-8 of SPEC section 4 for one target, in order, and
// returns the first that refuses, or nil when the target may change (rule
// 9, warn and save, is the facade's, on the way to the commit):
//
//  5. Observation: an existing file must have been observed (OpEdit,
//     OpReplace, OpDelete, OpMoveFrom), a directory listed (OpMoveDir),
//     and for OpCreate the nearest existing ancestor directory observed.
//  6. Freshness: for an existing file, expected_version (when given) must
//     be the observed version, and the version now must be the observed
//     one; for OpCreate, an expected_version refuses (nothing exists to
//     hold it). Matching (Unmatched) follows.
//  7. Binding: CheckBinding on the regions of an OpEdit, on the whole file
//     for an OpReplace.
//  8. Input guard: a declared input refuses every Op but an OpEdit that
//     keeps its name (a declared input is edit-only); an OpMoveDir
//     carrying one refuses; an OpReplace of a non-empty file the session
//     did not create, and an OpCreate where such a file stood until the
//     session removed it, refuse without Overwrite when the request
//     names the file and does not ask to replace it (GuardReplace).
//
// So a declared input created in a directory never listed is refused by
// rule 5, whatever the tool: the refusal shows the listing, and the retry
// is refused by rule 8.
func Decide(f Facts) *Decision {
	if f.NoGate {
		// The gate is off; edits that do not apply still cannot land.
		if f.Op == OpEdit && f.Unmatched {
			return &Decision{Reason: Unmatched}
		}
		return nil
	}
	existing := f.Op != OpCreate && f.Op != OpMoveDir
	// Rule 5.
	if !f.Observed {
		reason := NotObserved
		if f.Op == OpCreate {
			reason = ParentNotListed
		}
		if f.Op == OpMoveDir {
			reason = DirNotListed
		}
		return &Decision{Rule: RuleObservation, Kind: "not_read", Reason: reason}
	}
	// Rule 6. (The cases are ifs, not a switch, so that mutation testing
	// sees each condition.)
	if f.Op == OpCreate && f.ExpectedVersion != "" {
		return &Decision{Rule: RuleFreshness, Kind: "changed", Reason: ExpectedMissing}
	}
	if existing && f.ExpectedVersion != "" && f.ExpectedVersion != f.Observation.Version {
		return &Decision{Rule: RuleFreshness, Kind: "changed", Reason: ExpectedNotObserved}
	}
	if existing && f.Version != f.Observation.Version {
		return &Decision{Rule: RuleFreshness, Kind: "changed", Reason: Stale}
	}
	if f.Op == OpEdit && f.Unmatched {
		return &Decision{Reason: Unmatched}
	}
	// Rule 7.
	if f.Op == OpEdit || f.Op == OpReplace {
		if ns := CheckBinding(f.Binding, f.Observation, f.Regions, f.Op == OpReplace); ns != nil {
			return &Decision{Rule: RuleBinding, Kind: "not_seen", Reason: Unseen, Gap: ns.Gap}
		}
	}
	// Rule 8.
	if f.Declared && (f.Op != OpEdit || f.MovesAway) && f.Op != OpMoveDir {
		return &Decision{Rule: RuleInput, Kind: "input", Reason: Declared}
	}
	if f.Op == OpMoveDir && f.DeclaredUnder != "" {
		return &Decision{Rule: RuleInput, Kind: "input", Reason: DeclaredUnder}
	}
	guarded := f.Op == OpReplace && !f.Empty && !f.Created || f.Op == OpCreate && f.Removed
	if guarded && GuardReplace(f.Path, "", f.Request, false, f.Overwrite) != "" {
		return &Decision{Rule: RuleInput, Kind: "input", Reason: Requested}
	}
	return nil
}
