package textedit

import "context"

// Apply is ApplyContext without cancellation or a size bound, for tests
// that apply edits to a small text.
func Apply(text []byte, edits []Edit) (Result, error) {
	return ApplyContext(context.Background(), text, edits, 0)
}
