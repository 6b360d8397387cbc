package mcpserver

import (
	"fmt"
	"slices"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/policy"
)

// The _meta keys a tools/call may carry.
const (
	metaSession = "stet/session" // string: run the call in this session instead of the connection's
	metaRequest = "stet/request" // string: pin the turn's request (input guard, stall threshold)
	metaInputs  = "stet/inputs"  // array of strings: the turn's declared inputs
)

// pin is what a call's _meta asks for.
type pin struct {
	session string
	turn    bool // stet/request or stet/inputs is present
	request *string
	inputs  []string // nil when stet/inputs is absent
}

// parseMeta reads the stet/* keys of a call's _meta. Other keys are left
// to others. A key with the wrong type is an invalid refusal naming it.
func parseMeta(meta map[string]any) (pin, *stet.Refusal) {
	var p pin
	if v, ok := meta[metaSession]; ok {
		s, ok := v.(string)
		if !ok || s == "" {
			return p, invalid("", "_meta %q must be a non-empty string (got %s); name the session to use, or leave the key out to use this connection's", metaSession, describe(v))
		}
		p.session = s
	}
	if v, ok := meta[metaRequest]; ok {
		s, ok := v.(string)
		if !ok {
			return p, invalid("", "_meta %q must be a string, the user's request for this turn (got %s)", metaRequest, describe(v))
		}
		p.request, p.turn = &s, true
	}
	if v, ok := meta[metaInputs]; ok {
		arr, ok := v.([]any)
		if !ok {
			return p, invalid("", "_meta %q must be an array of paths, e.g. [\"data/sales.csv\"] (got %s)", metaInputs, describe(v))
		}
		p.inputs = make([]string, 0, len(arr))
		for i, e := range arr {
			s, ok := e.(string)
			if !ok {
				return p, invalid("", "_meta %q: inputs[%d] must be a path string (got %s)", metaInputs, i, describe(e))
			}
			p.inputs = append(p.inputs, s)
		}
		p.turn = true
	}
	return p, nil
}

// applyTurn pins the turn p asks for, unless the session already has it (a
// client may repeat the same _meta on every call of a turn). A new request
// without stet/inputs starts a turn without declared inputs; stet/inputs
// alone keeps the request.
func applyTurn(sess *stet.Session, p pin) (*stet.Refusal, error) {
	curReq, curIn := sess.Request()
	req, in := curReq, curIn
	if p.request != nil {
		req = *p.request
		if p.inputs == nil && req != curReq {
			in = nil
		}
	}
	if p.inputs != nil {
		norm, err := policy.NormalizeInputs(p.inputs)
		if err != nil {
			return &stet.Refusal{Kind: stet.KindInvalid, Message: fmt.Sprintf("refused: _meta %q: %s", metaInputs, cause(err)), Err: err}, nil
		}
		in = norm
	}
	if req == curReq {
		// What the turn would declare (a worker brief adds its INPUTS),
		// so that a client repeating the same _meta pins nothing new.
		would, err := sess.Declared(req, in...)
		if err == nil && slices.Equal(would, curIn) {
			return nil, nil
		}
	}
	if err := sess.Turn(req, in...); err != nil {
		if r, ok := stet.AsRefusal(err); ok {
			return r, nil
		}
		return nil, err
	}
	return nil, nil
}

// describe names the JSON type of a decoded value, for messages.
func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		if v == "" {
			return "an empty string"
		}
		return "a string"
	case bool:
		return "a boolean"
	case float64, int, int64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}
