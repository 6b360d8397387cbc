package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

type groups map[string]string // file base name -> group

func (g groups) String() string { return "" }

func (g groups) Set(v string) error {
	name, files, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("-group %q: want name=file,file", v)
	}
	for _, f := range strings.Split(files, ",") {
		g[strings.TrimSpace(f)] = name
	}
	return nil
}

func main() {
	g := groups{}
	showFiles := flag.Bool("files", false, "list every reference between two files (or groups), with the names used")
	flag.Var(g, "group", "name=file.go,file.go: count the references between groups of files")
	flag.Parse()
	pats := flag.Args()
	if len(pats) == 0 {
		pats = []string{"./..."}
	}
	out, err := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \",\"}}"}, pats...)...).Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "structure: go list:", err)
		os.Exit(1)
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(line, "\t")
		if len(parts) != 3 || parts[2] == "" {
			continue
		}
		if err := measure(fset, imp, parts[0], parts[1], strings.Split(parts[2], ","), g, *showFiles); err != nil {
			fmt.Fprintln(os.Stderr, "structure:", parts[0]+":", err)
			os.Exit(1)
		}
	}
}

func measure(fset *token.FileSet, imp types.Importer, path, dir string, names []string, g groups, showFiles bool) error {
	var files []*ast.File
	for _, n := range names {
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: imp, Error: func(error) {}}
	pkg, _ := conf.Check(path, fset, files, info)
	if pkg == nil {
		return fmt.Errorf("not type-checked")
	}
	node := func(pos token.Pos) string {
		base := filepath.Base(fset.Position(pos).Filename)
		if n, ok := g[base]; ok {
			return n
		}
		return base
	}
	edges := map[[2]string]map[string]bool{}
	add := func(from token.Pos, obj types.Object) {
		if obj == nil || obj.Pkg() != pkg || !obj.Pos().IsValid() {
			return
		}
		if obj.Parent() != nil && obj.Parent() != pkg.Scope() {
			return // a local name
		}
		a, b := node(from), node(obj.Pos())
		if a == b {
			return
		}
		k := [2]string{a, b}
		if edges[k] == nil {
			edges[k] = map[string]bool{}
		}
		edges[k][obj.Name()] = true
	}
	for id, obj := range info.Uses {
		switch o := obj.(type) {
		case *types.Var:
			if o.IsField() {
				continue
			}
		case *types.Func:
			if sig, ok := o.Type().(*types.Signature); ok && sig.Recv() != nil {
				continue // counted through Selections
			}
		}
		add(id.Pos(), obj)
	}
	for sel, s := range info.Selections {
		if f, ok := s.Obj().(*types.Func); ok {
			add(sel.Sel.Pos(), f)
		}
	}
	nodes := map[string]bool{}
	for k := range edges {
		nodes[k[0]], nodes[k[1]] = true, true
	}
	circ := inCircles(nodes, edges)
	refs, circRefs := 0, 0
	for k, ns := range edges {
		refs += len(ns)
		if circ[k] {
			circRefs += len(ns)
		}
	}
	fmt.Printf("%s\tfiles %d\tfile pairs %d (%d in a circle)\tnames used across files %d (%d in a circle)\n",
		path, len(names), len(edges), countTrue(circ), refs, circRefs)
	if showFiles {
		keys := make([][2]string, 0, len(edges))
		for k := range edges {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if keys[i][0] != keys[j][0] {
				return keys[i][0] < keys[j][0]
			}
			return keys[i][1] < keys[j][1]
		})
		for _, k := range keys {
			var ns []string
			for n := range edges[k] {
				ns = append(ns, n)
			}
			sort.Strings(ns)
			mark := ""
			if circ[k] {
				mark = " (circle)"
			}
			fmt.Printf("  %s -> %s%s: %s\n", k[0], k[1], mark, strings.Join(ns, " "))
		}
	}
	return nil
}

func countTrue(m map[[2]string]bool) int {
	n := 0
	for _, v := range m {
		if v {
			n++
		}
	}
	return n
}

// inCircles marks the edges whose two ends lie in one strongly connected
// component (Tarjan's algorithm).
func inCircles(nodes map[string]bool, edges map[[2]string]map[string]bool) map[[2]string]bool {
	adj := map[string][]string{}
	for k := range edges {
		adj[k[0]] = append(adj[k[0]], k[1])
	}
	index, low, comp := map[string]int{}, map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	next, ncomp := 0, 0
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range adj[v] {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp[w] = ncomp
				if w == v {
					break
				}
			}
			ncomp++
		}
	}
	var all []string
	for n := range nodes {
		all = append(all, n)
	}
	sort.Strings(all)
	for _, n := range all {
		if _, seen := index[n]; !seen {
			visit(n)
		}
	}
	out := map[[2]string]bool{}
	for k := range edges {
		out[k] = comp[k[0]] == comp[k[1]]
	}
	return out
}
