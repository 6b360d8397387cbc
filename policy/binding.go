package policy

// Observation is what a session saw of one version of a file.
type Observation struct {
	Version string // sha256:<64 hex> of the bytes observed
	Seen    Ranges // byte ranges returned to the model at this version
	Whole   bool   // a whole-file read of this version happened
	Size    int    // the file's size in bytes at this version
	// Windowed: the file is larger than one default read window, so no
	// single read returns it whole (BindFull then takes windows that
	// together cover it).
	Windowed bool
}

// NotSeen is what CheckBinding finds when it refuses a call (Decide's
// refusal of kind not_seen, Decision.Gap): Gap is the first byte range the
// call needed that the session has not seen at this version. For a
// zero-length region (an insertion) Gap is empty and marks the insertion
// point. It is not an error: the facade words the refusal in lines.
type NotSeen struct {
	Gap Range
}

// CheckBinding decides rule 7 for one call on one file. obs must be the
// session's observation of the file's current version (rule 6 has passed);
// regions are the preimage byte ranges the call replaces; wholeReplace is
// set for a whole-file replace. It returns nil when the call may go ahead.
//
//   - BindRead: any observation is enough.
//   - BindFull: one whole-file read of this version (obs.Whole) is needed;
//     the gap is the whole file. A file over one read window (obs.Windowed)
//     can never be read whole in one call: there, windows of this version
//     that together cover all of [0, Size) count as the whole read, and
//     the gap is the first byte range not read.
//   - BindSeen: each region must lie inside obs.Seen; a zero-length
//     region at offset p needs p inside or at the edge of a seen range; a
//     whole-file replace needs all of [0, Size) seen. A whole-file read
//     (obs.Whole) sees everything.
//
// An unknown mode is treated as BindSeen, the strictest per-region rule.
func CheckBinding(mode Binding, obs Observation, regions []Range, wholeReplace bool) *NotSeen {
	all := Range{0, obs.Size}
	switch mode {
	case BindRead:
		return nil
	case BindFull:
		if obs.Whole {
			return nil
		}
		if !obs.Windowed {
			return &NotSeen{Gap: all}
		}
		if gap, ok := obs.Seen.FirstGap(all); ok {
			return &NotSeen{Gap: gap}
		}
		return nil
	}
	if obs.Whole {
		return nil
	}
	seen := obs.Seen
	if gap, ok := seen.FirstGap(all); !ok {
		return nil
	} else if wholeReplace {
		return &NotSeen{Gap: gap}
	}
	for _, r := range regions {
		if r.Empty() {
			if !seen.touches(r.Start) {
				return &NotSeen{Gap: Range{r.Start, r.Start}}
			}
			continue
		}
		if gap, ok := seen.FirstGap(r); ok {
			return &NotSeen{Gap: gap}
		}
	}
	return nil
}
