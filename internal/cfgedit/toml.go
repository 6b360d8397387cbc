package cfgedit

// SetTOML is a stub.
func SetTOML(src []byte, path []string, name string, val Obj) ([]byte, error) { return nil, nil }
