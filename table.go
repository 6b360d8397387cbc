package stet

import (
	"context"
	"fmt"
	"reflect"
)

// A tool is one row of the table of tools: its name as the tools package
// and every surface spell it, the type of its arguments, and the method
// that runs it. Do and Call find a tool here; a new tool is its own file,
// its row, and its schema and description in package tools.
type tool struct {
	name string
	args reflect.Type // the arguments' type (Do takes it or a pointer to it)
	run  func(s *Session, ctx context.Context, args any) (any, error)
}

// row makes the table's row for a tool whose method takes arguments of
// type A, given as A or as *A.
func row[A any, R any](name string, method func(*Session, context.Context, A) (R, error)) tool {
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
	row("read", (*Session).readAny),
	row("info", (*Session).Info),
	row("roots", (*Session).Roots),
	row("edit", (*Session).Edit),
	row("write", (*Session).Write),
	row("patch", (*Session).Patch),
	row("list", (*Session).List),
	row("find", (*Session).Find),
	row("grep", (*Session).Grep),
	row("mkdir", (*Session).Mkdir),
	row("move", (*Session).Move),
	row("delete", (*Session).Delete),
	row("undo", (*Session).Undo),
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
