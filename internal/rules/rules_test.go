package rules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repoRoot is the module root, two levels up from this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", dir, err)
	}
	return dir
}

// rawFileCalls are the os functions that open, create or change files by
// path without confinement.
var rawFileCalls = map[string]bool{
	"ReadFile": true, "WriteFile": true, "Open": true, "OpenFile": true, "Create": true,
	"Remove": true, "RemoveAll": true, "Rename": true, "Truncate": true, "Chmod": true,
	"Link": true, "Symlink": true, "Mkdir": true, "MkdirAll": true, "CreateTemp": true, "MkdirTemp": true,
}

// allowMarker, in a comment on the line of the call or the line above,
// says the path is not a workspace path (a state directory, an operator's
// argument).
const allowMarker = "not a workspace path"

// TestOneConfinedWalk enforces DESIGN.md: no os.ReadFile, os.WriteFile,
// os.Open and friends anywhere outside fsys/local, except in tests and where
// a comment says the path is not a workspace path.
func TestOneConfinedWalk(t *testing.T) {
	root := repoRoot(t)
	var bad []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel == filepath.Join("fsys", "local") || strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		allowed := map[int]bool{}
		for _, cg := range f.Comments {
			if strings.Contains(cg.Text(), allowMarker) {
				end := fset.Position(cg.End()).Line
				allowed[end] = true
				allowed[end+1] = true
			}
		}
		osName := ""
		for _, imp := range f.Imports {
			if imp.Path.Value == `"os"` {
				osName = "os"
				if imp.Name != nil {
					osName = imp.Name.Name
				}
			}
		}
		if osName == "" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok || id.Name != osName || !rawFileCalls[sel.Sel.Name] {
				return true
			}
			line := fset.Position(sel.Pos()).Line
			if !allowed[line] {
				bad = append(bad, rel+":"+itoa(line)+": os."+sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Errorf("raw file call outside fsys/local (go through a confined fsys.Provider, or mark a non-workspace path with a %q comment): %s", allowMarker, b)
	}
}

// TestEveryPackageHasDocGo enforces that each package says what it is for.
func TestEveryPackageHasDocGo(t *testing.T) {
	root := repoRoot(t)
	dirs := map[string]bool{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != root || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			dirs[filepath.Dir(p)] = true
		}
		return nil
	})
	for dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, "doc.go")); err != nil {
			rel, _ := filepath.Rel(root, dir)
			t.Errorf("package %s has no doc.go", rel)
		}
	}
}

func itoa(n int) string {
	const digits = "0123456789"
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{digits[n%10]}, b...)
		n /= 10
	}
	return string(b)
}
