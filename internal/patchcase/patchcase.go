package patchcase

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Scenario is one patch scenario.
type Scenario struct {
	Name     string            // the file name without ".txtar"
	Comment  string            // the text before the first section
	Patch    string            // the patch text
	Input    map[string]string // slash path -> content; "dir/" -> "" for a directory
	Expected map[string]string // the tree after a landing call, in Input's notation
	Want     Want
}

// Want is what the call must do.
type Want struct {
	Refused  string   // "" when the call lands
	Receipts int      // -1 when not said
	Messages []string // parts of the result's text
	Observe  string   // "all", "list" or "none"
	Codex    string   // the Codex fixture recreated, or ""
	Differs  string   // the stet rule that departs from Codex's expectation, or ""
}

const noFinalNewline = " (no final newline)"

// Load reads every *.txtar scenario in dir, sorted by name.
func Load(dir string) ([]Scenario, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.txtar")) // not a workspace path: a test scenario or its scratch tree
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []Scenario
	for _, name := range names {
		b, err := os.ReadFile(name) // not a workspace path: a test scenario or its scratch tree
		if err != nil {
			return nil, err
		}
		sc, err := Parse(strings.TrimSuffix(filepath.Base(name), ".txtar"), string(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, sc)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no scenarios in %s", dir)
	}
	return out, nil
}

// Parse reads one scenario file's text.
func Parse(name, text string) (Scenario, error) {
	sc := Scenario{Name: name, Input: map[string]string{}, Expected: map[string]string{}, Want: Want{Receipts: -1, Observe: "all"}}
	sections := map[string]bool{}
	var cur string
	var body strings.Builder
	seenPatch, seenWant := false, false
	flush := func() error {
		if cur == "" {
			sc.Comment = body.String()
			body.Reset()
			return nil
		}
		content := body.String()
		body.Reset()
		name := cur
		if n, ok := strings.CutSuffix(name, noFinalNewline); ok {
			name, content = n, strings.TrimSuffix(content, "\n")
		}
		if sections[name] {
			return fmt.Errorf("section %q given twice", name)
		}
		sections[name] = true
		switch {
		case name == "patch":
			sc.Patch, seenPatch = content, true
		case name == "want":
			seenWant = true
			return sc.Want.parse(content)
		case strings.HasPrefix(name, "input/"):
			sc.Input[strings.TrimPrefix(name, "input/")] = content
		case strings.HasPrefix(name, "expected/"):
			sc.Expected[strings.TrimPrefix(name, "expected/")] = content
		default:
			return fmt.Errorf("unknown section %q: want, patch, input/PATH or expected/PATH", name)
		}
		return nil
	}
	for _, line := range strings.SplitAfter(text, "\n") {
		if line == "" {
			continue
		}
		t := strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) > 6 {
			if err := flush(); err != nil {
				return sc, err
			}
			cur = t[3 : len(t)-3]
			continue
		}
		body.WriteString(line)
	}
	if err := flush(); err != nil {
		return sc, err
	}
	if !seenPatch || !seenWant {
		return sc, fmt.Errorf("a scenario needs a want and a patch section")
	}
	if sc.Want.Refused == "" && len(sc.Expected) == 0 {
		return sc, fmt.Errorf("a landing scenario needs its expected tree")
	}
	if sc.Want.Refused != "" && len(sc.Expected) > 0 {
		return sc, fmt.Errorf("a refused scenario leaves its input: it has no expected tree")
	}
	return sc, nil
}

func (w *Want) parse(text string) error {
	lands := false
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		verb, arg, _ := strings.Cut(l, " ")
		arg = strings.TrimSpace(arg)
		switch verb {
		case "lands":
			lands = true
		case "refused":
			w.Refused = arg
		case "receipts":
			n, err := strconv.Atoi(arg)
			if err != nil {
				return fmt.Errorf("receipts %q: want a number", arg)
			}
			w.Receipts = n
		case "message":
			w.Messages = append(w.Messages, arg)
		case "observe":
			if arg != "all" && arg != "list" && arg != "none" {
				return fmt.Errorf("observe %q: want all, list or none", arg)
			}
			w.Observe = arg
		case "codex":
			w.Codex = arg
		case "differs":
			w.Differs = arg
		default:
			return fmt.Errorf("unknown want statement %q", l)
		}
	}
	if lands == (w.Refused != "") {
		return fmt.Errorf("want says neither or both of lands and refused KIND")
	}
	return nil
}

// Write makes the tree files (Input's notation) under root.
func Write(root string, files map[string]string) error {
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil { // not a workspace path: a test scenario or its scratch tree
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil { // not a workspace path: a test scenario or its scratch tree
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil { // not a workspace path: a test scenario or its scratch tree
			return err
		}
	}
	return nil
}

// Tree reads the tree under root in Input's notation: every file with its
// content, and every empty directory.
func Tree(root string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error { // not a workspace path: a test scenario or its scratch tree
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			ents, err := os.ReadDir(p) // not a workspace path: a test scenario or its scratch tree
			if err != nil {
				return err
			}
			if len(ents) == 0 {
				out[rel+"/"] = ""
			}
			return nil
		}
		b, err := os.ReadFile(p) // not a workspace path: a test scenario or its scratch tree
		if err != nil {
			return err
		}
		out[rel] = string(b)
		return nil
	})
	return out, err
}

// Diff says how tree differs from want, "" when they are equal.
func Diff(want, tree map[string]string) string {
	var b strings.Builder
	names := map[string]bool{}
	for n := range want {
		names[n] = true
	}
	for n := range tree {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		w, inWant := want[n]
		g, inTree := tree[n]
		switch {
		case !inTree:
			fmt.Fprintf(&b, "missing %s (want %q)\n", n, w)
		case !inWant:
			fmt.Fprintf(&b, "unexpected %s (%q)\n", n, g)
		case w != g:
			fmt.Fprintf(&b, "%s is %q, want %q\n", n, g, w)
		}
	}
	return b.String()
}

// Dirs returns every directory of the tree files, parents of files and
// empty directories, "." first, then in name order.
func Dirs(files map[string]string) []string {
	set := map[string]bool{".": true}
	for name := range files {
		d := path.Dir(strings.TrimSuffix(name, "/"))
		if strings.HasSuffix(name, "/") {
			d = strings.TrimSuffix(name, "/")
		}
		for d != "." && d != "/" && d != "" {
			set[d] = true
			d = path.Dir(d)
		}
	}
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i] == "." || out[j] == "." {
			return out[i] == "."
		}
		return out[i] < out[j]
	})
	return out
}

// Files returns the files of the tree (not its empty directories), sorted.
func Files(files map[string]string) []string {
	var out []string
	for name := range files {
		if !strings.HasSuffix(name, "/") {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
