package tools

import (
	"fmt"
	"strings"
	"sync"
)

// A Profile is one catalog of tools a surface can serve: its tools' names,
// descriptions, schemas and argument types, decoded by the one decoder of
// this package. Stet's own tools are the profile Stet; the reference
// filesystem server's tools, built on stet's, are Reference. The package's
// functions (All, Lookup, Mutating, Names, Decode) are Stet's.
type Profile struct {
	name  string
	tools []tool
	// nameOrder lists an input schema's properties in name order, with an
	// empty properties object when there are none: the shape in which the
	// reference profile's schemas have always been published.
	nameOrder bool
	specs     func() ([]Spec, error) // built once; All and Lookup hand out copies
}

// The profiles.
var (
	// Stet is stet's own tools (SPEC section 2), in SPEC order.
	Stet = newProfile("stet", catalog, false)
	// Reference is the tools of the reference filesystem server
	// (@modelcontextprotocol/server-filesystem), in its order, each built
	// on one of stet's (Spec.Base): its names, arguments and schemas, with
	// descriptions that say what stet adds.
	Reference = newProfile("reference", refCatalog, true)
)

func newProfile(name string, tools []tool, nameOrder bool) *Profile {
	p := &Profile{name: name, tools: tools, nameOrder: nameOrder}
	p.specs = sync.OnceValues(func() ([]Spec, error) {
		out := make([]Spec, 0, len(p.tools))
		for i := range p.tools {
			s, err := p.tools[i].spec(p.nameOrder)
			if err != nil {
				return nil, fmt.Errorf("tools: schema of %s: %w", p.tools[i].name, err)
			}
			out = append(out, s)
		}
		return out, nil
	})
	return p
}

// Name is the profile's name: "stet" or "reference".
func (p *Profile) Name() string { return p.name }

func (p *Profile) built() []Spec {
	s, err := p.specs()
	if err != nil {
		// The schemas come from this package's own types and tables; a
		// failure is a programming error caught by the package tests.
		panic(err)
	}
	return s
}

func (s Spec) clone() Spec {
	s.Input = s.Input.CloneSchemas()
	s.Output = s.Output.CloneSchemas()
	return s
}

// All returns every tool of the profile, in its order. The schemas are
// fresh copies the caller may keep or change.
func (p *Profile) All() []Spec {
	built := p.built()
	out := make([]Spec, len(built))
	for i, s := range built {
		out[i] = s.clone()
	}
	return out
}

// Lookup returns the profile's tool named name.
func (p *Profile) Lookup(name string) (Spec, bool) {
	for _, s := range p.built() {
		if s.Name == name {
			return s.clone(), true
		}
	}
	return Spec{}, false
}

// Base returns the stet tool that the profile's tool named name is built
// on (see Spec.Base); ok is false for an unknown name. Like Mutating it
// builds no schema.
func (p *Profile) Base(name string) (base string, ok bool) {
	t, ok := p.lookup(name)
	if !ok {
		return "", false
	}
	if t.base != "" {
		return t.base, true
	}
	return t.name, true
}

// Mutating reports whether the profile's tool named name changes files;
// ok is false for an unknown name. Unlike Lookup it builds no schema, so
// it is cheap enough for every call.
func (p *Profile) Mutating(name string) (mutating, ok bool) {
	t, ok := p.lookup(name)
	if !ok {
		return false, false
	}
	return t.mutating, true
}

// Names returns the profile's tool names in its order; with readOnly, the
// mutating tools are left out, as they are from a read-only server's tool
// list.
func (p *Profile) Names(readOnly bool) []string {
	var names []string
	for _, t := range p.tools {
		if readOnly && t.mutating {
			continue
		}
		names = append(names, t.name)
	}
	return names
}

// Decode is Decode for a tool of this profile: it returns a pointer to the
// tool's argument type (*ReadTextFileArgs for read_text_file, ...) or an
// *ArgError, by the same rules and in the same words for every profile.
func (p *Profile) Decode(tool string, raw []byte) (any, error) {
	t, ok := p.lookup(tool)
	if !ok {
		names := p.Names(false)
		if s := Nearest(tool, names); s != "" {
			return nil, fmt.Errorf("%w %q; did you mean %q?", ErrUnknownTool, truncate(tool), s)
		}
		return nil, fmt.Errorf("%w %q; the tools are %s", ErrUnknownTool, truncate(tool), strings.Join(names, ", "))
	}
	return t.decode(raw)
}

func (p *Profile) lookup(name string) (*tool, bool) {
	for i := range p.tools {
		if p.tools[i].name == name {
			return &p.tools[i], true
		}
	}
	return nil, false
}

// lookupTool returns the stet tool named name.
func lookupTool(name string) (*tool, bool) { return Stet.lookup(name) }

// All returns every stet tool in SPEC order: read, info, roots, edit,
// write, patch, list, find, grep, mkdir, move, delete, undo. The schemas
// are fresh copies the caller may keep or change.
func All() []Spec { return Stet.All() }

// Lookup returns the stet tool named name.
func Lookup(name string) (Spec, bool) { return Stet.Lookup(name) }

// Mutating reports whether the stet tool named name changes files; ok is
// false for an unknown name. Unlike Lookup it builds no schema, so it is
// cheap enough for every call.
func Mutating(name string) (mutating, ok bool) { return Stet.Mutating(name) }

// Names returns the stet tool names in SPEC order; with readOnly, the
// mutating tools are left out, as they are from a read-only server's tool
// list.
func Names(readOnly bool) []string { return Stet.Names(readOnly) }
