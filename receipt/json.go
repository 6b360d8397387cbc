package receipt

import "encoding/json"

// MarshalJSON writes the SPEC section 6 form of r. It differs from the
// default encoding in one point: a nil Matches is written as [] rather than
// null, so callers need not set an empty slice. Before and After are null
// when nil.
func (r Receipt) MarshalJSON() ([]byte, error) {
	type plain Receipt // no methods: avoids recursing into MarshalJSON
	p := plain(r)
	if p.Matches == nil {
		p.Matches = []Match{}
	}
	return json.Marshal(p)
}
