package cfgedit

// SetYAML is a stub.
func SetYAML(src []byte, section, name string, val Obj) ([]byte, error) { return nil, nil }
