package stet

import (
	"context"
	"fmt"
	"reflect"
)

// A tool is one row of the table of tools: its name as the tools package
// and every surface spell it, the type of its arguments, the method that
// runs it, the text a model reads of its result, and whether a result
// altered the tree. Do, Call and Text find a tool here; a new tool is its
// own file, its row, and its schema and description in package tools.
type tool struct {
	name string
	args reflect.Type // the arguments' type (Do takes it or a pointer to it)
	run  func(s *Session, ctx context.Context, args any) (any, error)
	// render returns the text of res, and whether res is this tool's
	// result.
	render func(res any) (string, bool)
	// changed reports whether res, a result of this tool, altered the
	// tree (ok false: not its result); nil for a tool that changes nothing.
	changed func(res any) (changed, ok bool)
}

// row makes the table's row for a tool whose method takes arguments of
// type A, given as A or as *A, and returns R, rendered by text; changed,
// for a tool that may change the tree, says whether a result did.
func row[A any, R any](name string, method func(*Session, context.Context, A) (R, error), text func(R) string, changed func(R) bool) tool {
	t := row0(name, method)
	t.render = func(res any) (string, bool) {
		r, ok := res.(R)
		if !ok {
			return "", false
		}
		return text(r), true
	}
	if changed != nil {
		t.changed = func(res any) (bool, bool) {
			r, ok := res.(R)
			if !ok {
				return false, false
			}
			return changed(r), true
		}
	}
	return t
}

// row0 is a row's name, argument type and method.
func row0[A any, R any](name string, method func(*Session, context.Context, A) (R, error)) tool {
	return tool{name: name, args: reflect.TypeFor[A](), run: func(s *Session, ctx context.Context, args any) (any, error) {
		switch a := args.(type) {
		case A:
			return method(s, ctx, a)
		case *A:
			return method(s, ctx, *a)
		}
		return nil, fmt.Errorf("stet: %s takes %s, not %T", name, reflect.TypeFor[A](), args)
	}}
}

// toolTable is every tool, in the order of tools.Names. It is never
// changed after the package is initialized.
var toolTable = []tool{
	readRow(),
	row("info", (*Session).Info, infoText, nil),
	row("roots", (*Session).Roots, rootsText, nil),
	row("edit", (*Session).Edit, mutationText, mutationChanged),
	row("write", (*Session).Write, mutationText, mutationChanged),
	row("patch", (*Session).Patch, patchText, patchChanged),
	row("list", (*Session).List, listText, nil),
	row("find", (*Session).Find, findText, nil),
	row("grep", (*Session).Grep, grepText, nil),
	row("mkdir", (*Session).Mkdir, mkdirText, mkdirChanged),
	row("move", (*Session).Move, mutationText, mutationChanged),
	row("delete", (*Session).Delete, mutationText, mutationChanged),
	row("undo", (*Session).Undo, mutationText, mutationChanged),
}

// toolFor returns the row of the tool that takes args (a value or a
// pointer), or nil.
func toolFor(args any) *tool {
	t := reflect.TypeOf(args)
	if t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for i := range toolTable {
		if toolTable[i].args == t {
			return &toolTable[i]
		}
	}
	return nil
}
