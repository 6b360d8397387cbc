package local

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// The columns of the table in docs/platforms.md ("At a glance"), in order,
// and the GOOS whose declaration fills each.
var columns = []struct{ name, goos string }{
	{"Linux", "linux"},
	{"macOS", "darwin"},
	{"Windows", "windows"},
	{"Other unix (FreeBSD, …)", "freebsd"},
}

// rows renders a platform's declared primitives into the table's cells,
// one per guarantee the commit sequence's primitives give.
var rows = []struct {
	guarantee string
	cell      func(p primitives) string
}{
	{"Compare-and-swap of a replace", func(p primitives) string {
		if p.exchange == "" {
			return "**not claimed**: compare, then a replacing rename under stet's directory lock (`Commit.Fallback`)"
		}
		return p.exchange + ", swapped-out bytes compared, swapped back on a mismatch (`conflict`)"
	}},
	{"Atomic create (never replaces)", func(p primitives) string {
		then := p.link + " then removal of the temp name"
		if p.noReplace != "" {
			then = p.noReplace + ", or " + then + " where the filesystem lacks it"
		}
		return then + "; check then rename without hard links (FAT, exFAT)"
	}},
	{"Durability", func(p primitives) string {
		if p.flushDir {
			return "the file and its directory: " + p.flush
		}
		return "the file: " + p.flush + "; directories are not flushed"
	}},
	{"Directory locks", func(p primitives) string { return p.lock }},
	{"A directory on the way moved since the walk", func(p primitives) string {
		return "refused (`fsys.ErrMoved`): its " + p.still + " checked against a fresh confined lookup, under the lock, just before the swap"
	}},
	{"Another process holding the file open for writing (a logger, `tee -a`)", func(p primitives) string {
		switch {
		case p.openWriter != "":
			return "detected: " + p.openWriter + ", and a replace or delete is refused `conflict`"
		case p.writerElse != "":
			return "not detected; " + p.writerElse
		}
		return "not detected"
	}},
}

// TestPlatformsTable renders each platform's primitives, as declared in
// the files that GOOS builds (platform_<os>.go), into the rows of the
// table in docs/platforms.md, and compares them with the document: a
// primitive that changes what it can do changes the table, or this fails.
func TestPlatformsTable(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "platforms.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, glance, _ := strings.Cut(string(doc), "\n## At a glance\n")
	glance, _, _ = strings.Cut(glance, "\n## ")
	lines := strings.Split(glance, "\n")
	decl := map[string]primitives{}
	for _, c := range columns {
		decl[c.goos] = declared(t, c.goos)
	}
	if p, ok := decl[runtime.GOOS]; ok && p != platform {
		t.Fatalf("the declaration parsed for %s is %+v, compiled it is %+v", runtime.GOOS, p, platform)
	}
	for _, r := range rows {
		want := "| " + r.guarantee + " |"
		for _, c := range columns {
			want += " " + r.cell(decl[c.goos]) + " |"
		}
		var got string
		for _, l := range lines {
			if strings.HasPrefix(l, "| "+r.guarantee+" |") {
				got = l
				break
			}
		}
		if got != want {
			t.Errorf("docs/platforms.md, row %q:\n got: %s\nwant: %s", r.guarantee, got, want)
		}
	}
}

// declared parses the primitives the files built for goos declare in
// their one "var platform = primitives{...}".
func declared(t *testing.T, goos string) primitives {
	t.Helper()
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH, ctx.CgoEnabled = goos, "amd64", false
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var lits []*ast.CompositeLit
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		if ok, err := ctx.MatchFile(".", name); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				v := s.(*ast.ValueSpec)
				if len(v.Names) == 1 && v.Names[0].Name == "platform" && len(v.Values) == 1 {
					if lit, ok := v.Values[0].(*ast.CompositeLit); ok {
						lits = append(lits, lit)
					}
				}
			}
		}
	}
	if len(lits) != 1 {
		t.Fatalf("%s builds %d declarations of platform, want 1", goos, len(lits))
	}
	var p primitives
	for _, e := range lits[0].Elts {
		kv := e.(*ast.KeyValueExpr)
		key := kv.Key.(*ast.Ident).Name
		if id, ok := kv.Value.(*ast.Ident); ok && key == "flushDir" {
			p.flushDir = id.Name == "true"
			continue
		}
		lit, ok := kv.Value.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			t.Fatalf("%s: platform.%s is not a string literal", goos, key)
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			t.Fatal(err)
		}
		switch key {
		case "exchange":
			p.exchange = s
		case "noReplace":
			p.noReplace = s
		case "link":
			p.link = s
		case "flush":
			p.flush = s
		case "lock":
			p.lock = s
		case "still":
			p.still = s
		case "openWriter":
			p.openWriter = s
		case "writerElse":
			p.writerElse = s
		default:
			t.Fatalf("%s: platform.%s is not rendered into the table", goos, key)
		}
	}
	return p
}

// TestPrimitivesAnswerAsDeclared calls this system's primitives and
// checks each answers as its declaration says: a primitive declared
// missing answers errNotHere, one declared present does not (a filesystem
// may still refuse it).
func TestPrimitivesAnswerAsDeclared(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a", "b"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	d, err := l.openDir(".")
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	for _, c := range []struct {
		what     string
		declared string
		err      error
	}{
		{"exchange", platform.exchange, exchange(d, "a", "b")},
		{"noReplace", platform.noReplace, renameNoReplace(d, "a", d, "c")},
		{"openWriter", platform.openWriter, openWriter(d, "b")},
	} {
		if (c.declared == "") != (c.err == errNotHere) {
			t.Errorf("%s is declared %q and answers %v", c.what, c.declared, c.err)
		}
	}
	if err := (&held{l: l, name: "b", d: d}).still("test"); err != nil {
		t.Errorf("still: %v", err)
	}
	if err := d.sync(); err != nil {
		t.Errorf("sync: %v", err)
	}
}
