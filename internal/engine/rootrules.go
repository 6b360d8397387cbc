package engine

import (
	"path/filepath"
	"strings"

	"github.com/stet-dev/stet/glob"
	"github.com/stet-dev/stet/policy"
)

// ruleSet is the path rules of one root, judged on a name in every root
// that holds the file: its own rules (policy.Rules, embedded, with the
// root's state directory) on the name in this root, and
// the rules of each root that overlaps this one (one holds the other) on
// the name the file has there. So with nested roots a file is hidden or
// protected under its shorter name in the inner root exactly as under its
// longer name in the outer one, and the other way round.
//
// Every check of a path rule goes through Denied, Protected and
// HasDenied; the embedded policy.Rules methods judge one root only.
type RuleSet struct {
	policy.Rules
	Views []ruleView
}

// ruleView is how another root names this root's files.
type ruleView struct {
	other  *Root
	prefix string // slash-separated; "." when both are the same directory
	// outer: other holds this root at prefix (a name n here is prefix/n
	// there). Otherwise this root holds other at prefix (a name prefix/m
	// here is m there; names elsewhere are not in other).
	outer bool
}

// name returns n, a name in this root, as v's other root names it.
func (v ruleView) name(n string) (string, bool) {
	if v.prefix == "." {
		return n, true
	}
	if v.outer {
		if n == "." || n == "" {
			return v.prefix, true
		}
		return v.prefix + "/" + n, true
	}
	pre := strings.Split(v.prefix, "/")
	parts := strings.Split(n, "/")
	if len(parts) < len(pre) {
		return "", false
	}
	for i, p := range pre {
		if p != parts[i] && glob.Fold(p) != glob.Fold(parts[i]) {
			return "", false
		}
	}
	if len(parts) == len(pre) {
		return ".", true
	}
	return strings.Join(parts[len(pre):], "/"), true
}

// Denied reports whether name is hidden from every tool, in this root or
// in any root that holds the file, and the pattern that hides it.
func (rs *RuleSet) Denied(name string) (string, bool) {
	if pat, ok := rs.Rules.Denied(name); ok {
		return pat, true
	}
	for _, v := range rs.Views {
		if m, ok := v.name(name); ok {
			if pat, ok := v.other.Rules.Rules.Denied(m); ok {
				return pat, true
			}
		}
	}
	return "", false
}

// Protected reports whether name may not be changed, in this root or in
// any root that holds the file, and the pattern that protects it.
func (rs *RuleSet) Protected(name string) (string, bool) {
	if pat, ok := rs.Rules.Protected(name); ok {
		return pat, true
	}
	for _, v := range rs.Views {
		if m, ok := v.name(name); ok {
			if pat, ok := v.other.Rules.Rules.Protected(m); ok {
				return pat, true
			}
		}
	}
	return "", false
}

// HasDenied reports whether any name of this root can be denied, by its
// own rules or by those of a root that overlaps it.
func (rs *RuleSet) HasDenied() bool {
	if rs.Rules.HasDenied() {
		return true
	}
	for _, v := range rs.Views {
		if v.other.Rules.Rules.HasDenied() {
			return true
		}
	}
	return false
}

// linkRoots finds the roots that overlap (one holds the other) and gives
// each the other's view. Roots are compared by every spelling stet knows
// (as given and resolved), so a root given through a symlink, or under
// another spelling of the same directory, is found either way; names are
// also compared in every spelling a filesystem may take for them
// (glob.Fold), as the rules are, so two roots that are one directory on a
// volume that folds case or Unicode forms are linked, and on one that does
// not, the rules of each merely reach the other's names too. It runs
// after each root's own rules are set.
func (ws *Workspace) LinkRoots() {
	for _, r := range ws.RootList {
		r.Rules.Views = nil
	}
	seen := map[*Root]map[ruleView]bool{}
	add := func(r *Root, v ruleView) {
		if seen[r] == nil {
			seen[r] = map[ruleView]bool{}
		}
		if !seen[r][v] {
			seen[r][v] = true
			r.Rules.Views = append(r.Rules.Views, v)
		}
	}
	for _, out := range ws.RootList {
		for _, in := range ws.RootList {
			if out == in {
				continue
			}
			for _, a := range []string{out.Dir, out.Real} {
				for _, b := range []string{in.Dir, in.Real} {
					prefix, ok := within(a, b)
					if !ok {
						continue
					}
					add(out, ruleView{other: in, prefix: prefix})
					add(in, ruleView{other: out, prefix: prefix, outer: true})
				}
			}
		}
	}
}

// within reports whether the directory inner lies in outer (or is it), and
// its slash-separated path there ("." for the same directory), comparing
// names as written and then by their keys (glob.Fold).
func within(outer, inner string) (string, bool) {
	if rel, err := filepath.Rel(outer, inner); err == nil && (rel == "." || filepath.IsLocal(rel)) {
		return filepath.ToSlash(rel), true
	}
	split := func(p string) []string {
		return strings.FieldsFunc(filepath.ToSlash(filepath.Clean(p)), func(r rune) bool { return r == '/' })
	}
	oc, ic := split(outer), split(inner)
	if len(ic) < len(oc) {
		return "", false
	}
	for i := range oc {
		if oc[i] != ic[i] && glob.Fold(oc[i]) != glob.Fold(ic[i]) {
			return "", false
		}
	}
	if len(ic) == len(oc) {
		return ".", true
	}
	return strings.Join(ic[len(oc):], "/"), true
}
