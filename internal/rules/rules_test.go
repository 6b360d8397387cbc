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

// rawFileCalls are the functions, by import path, that open, create,
// change, describe, list or resolve files by path without confinement:
// a stat, a directory listing or a symlink resolution done this way walks
// the host's namespace as surely as an open does.
var rawFileCalls = map[string]map[string]bool{
	"os": {
		"ReadFile": true, "WriteFile": true, "Open": true, "OpenFile": true, "Create": true,
		"Remove": true, "RemoveAll": true, "Rename": true, "Truncate": true, "Chmod": true,
		"Link": true, "Symlink": true, "Mkdir": true, "MkdirAll": true, "CreateTemp": true, "MkdirTemp": true,
		"Stat": true, "Lstat": true, "ReadDir": true, "Readlink": true, "Chtimes": true, "Chown": true,
		"Lchown": true, "DirFS": true, "CopyFS": true, "OpenRoot": true, "OpenInRoot": true,
	},
	"path/filepath": {"EvalSymlinks": true, "Walk": true, "WalkDir": true, "Glob": true},
	"io/ioutil":     {"ReadFile": true, "WriteFile": true, "ReadDir": true, "TempFile": true, "TempDir": true},
}

// allowMarker, in a comment on the line of the call or the line above,
// says the path is not a workspace path (a state directory, an operator's
// argument).
const allowMarker = "not a workspace path"

// rawCalls returns the raw file calls in the Go source src (or read from
// file when src is nil; name is how messages call it) that no allowMarker comment covers, as "name:line: pkg.Func".
func rawCalls(name, file string, src any) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	allowed := map[int]bool{}
	for _, cg := range f.Comments {
		if strings.Contains(cg.Text(), allowMarker) {
			end := fset.Position(cg.End()).Line
			allowed[end] = true
			allowed[end+1] = true
		}
	}
	imported := map[string]string{} // local name -> import path
	for _, imp := range f.Imports {
		p := strings.Trim(imp.Path.Value, `"`)
		if rawFileCalls[p] == nil {
			continue
		}
		local := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			local = imp.Name.Name
		}
		imported[local] = p
	}
	if len(imported) == 0 {
		return nil, nil
	}
	var bad []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		p, ok := imported[id.Name]
		if !ok || !rawFileCalls[p][sel.Sel.Name] {
			return true
		}
		line := fset.Position(sel.Pos()).Line
		if !allowed[line] {
			bad = append(bad, name+":"+itoa(line)+": "+id.Name+"."+sel.Sel.Name)
		}
		return true
	})
	return bad, nil
}

// TestOneConfinedWalk enforces DESIGN.md: no os.ReadFile, os.Stat,
// os.ReadDir, filepath.EvalSymlinks and friends anywhere outside
// fsys/local, except in tests and where a comment says the path is not a
// workspace path.
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
		b, err := rawCalls(rel, p, nil)
		if err != nil {
			return err
		}
		bad = append(bad, b...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Errorf("raw file call outside fsys/local (go through a confined fsys.Provider, or mark a non-workspace path with a %q comment): %s", allowMarker, b)
	}
}

// TestOneConfinedWalkSeesEveryCall: the check flags each raw call it
// lists, under any import name, and lets through only a call a marker
// comment covers.
func TestOneConfinedWalkSeesEveryCall(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n\nimport (\n\tgoos \"os\"\n\t\"path/filepath\"\n\t\"io/ioutil\"\n)\n\nvar _ = []any{\n")
	want := 0
	for _, p := range []string{"os", "path/filepath", "io/ioutil"} {
		local := map[string]string{"os": "goos", "path/filepath": "filepath", "io/ioutil": "ioutil"}[p]
		for fn := range rawFileCalls[p] {
			b.WriteString("\t" + local + "." + fn + ",\n")
			want++
		}
	}
	b.WriteString("\tgoos.Stat, // not a workspace path: covered\n\tgoos.Getpid,\n}\n")
	got, err := rawCalls("p.go", "p.go", b.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != want {
		t.Errorf("flagged %d calls, want %d: %v", len(got), want, got)
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
