package tools

// Ops returns the replacements of a decoded edit call in one form: Edits as
// given, or the single OldString/NewString/ReplaceAll replacement. Call it
// only on arguments Decode accepted; otherwise it returns what is there and
// nil for a missing string.
func (a *EditArgs) Ops() []EditOp {
	if a.Edits != nil {
		return a.Edits
	}
	if a.OldString == nil || a.NewString == nil {
		return nil
	}
	return []EditOp{{OldString: *a.OldString, NewString: *a.NewString, ReplaceAll: a.ReplaceAll}}
}
