package fsystest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stet-dev/stet/fsys"
)

// diffTree is the tree every differential run starts from.
var diffTree = []string{
	"a=alpha", "b=", "d/", "d/a=delta", "d/e/", "d/e/f=eff",
	"l => a", "ld => d", "la => $ROOT/a", "lad => $ROOT/d",
	"lo => ../outside/secret", "lod => ../outside", "loa => $OUTSIDE/secret",
	"dangle => nowhere", "chain => l",
}

var (
	diffNames = []string{
		"a", "b", "c", "d", "d/a", "d/b", "d/e", "d/e/f", "d/e/g", "e", "e/a",
		"l", "ld", "ld/a", "ld/e/f", "la", "lad/a", "lo", "lod", "lod/secret", "loa",
		"dangle", "chain", "nowhere", "x/y", "a/b", ".", "./d/../a", "../a", "/a", "",
	}
	diffTargets = []string{
		"a", "d", "d/a", "nowhere", "l", ".", "..", "../outside", "../outside/secret",
		"$ROOT/a", "$ROOT/d", "$OUTSIDE/secret", "d/../a", "chain",
	}
	diffTop  = []string{"a", "b", "c", "e", "l", "n", "m", "lo", "dangle"}
	diffData = []string{"", "x", "alpha", "delta", "hello world\n", strings.Repeat("long line\n", 400)}
)

// Differential plays one random sequence of steps operations, drawn from
// seed, against fresh harnesses made by mkA and mkB, each over the same small tree of files, directories and links
// (inside, leaving, absolute, dangling, chained).
// It fails at the first result (value or error kind) that differs, and if
// the final trees differ or anything outside either root changed.
func Differential(t *testing.T, mkA, mkB func(t *testing.T) Harness, seed uint64, steps int) {
	ha, hb := mkA(t), mkB(t)
	Build(t, ha, diffTree...)
	Build(t, hb, diffTree...)
	ea := newEnvOn(t, ha, fsys.Hooks{})
	eb := newEnvOn(t, hb, fsys.Hooks{})
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	var log []string
	for i := range steps {
		var step func(e *env) string
		var desc string
		switch rng.IntN(16) {
		case 0:
			n := pick(diffNames)
			desc = fmt.Sprintf("ReadFile(%q)", n)
			step = func(e *env) string {
				data, err := e.p.ReadFile(e.h.expand(n))
				return fmt.Sprintf("%q %s", data, kindName(err))
			}
		case 1:
			n := pick(diffNames)
			desc = fmt.Sprintf("Stat(%q)", n)
			step = func(e *env) string {
				fi, err := e.p.Stat(e.h.expand(n))
				return infoString(fi) + " " + kindName(err)
			}
		case 2:
			n := pick(diffNames)
			desc = fmt.Sprintf("ReadDir(%q)", n)
			step = func(e *env) string {
				infos, err := e.p.ReadDir(e.h.expand(n))
				var s []string
				for _, fi := range infos {
					s = append(s, infoString(fi))
				}
				return strings.Join(s, ",") + " " + kindName(err)
			}
		case 3:
			n := pick(diffNames)
			desc = fmt.Sprintf("Resolve(%q)", n)
			step = func(e *env) string {
				r, ok := e.p.(fsys.Resolver)
				if !ok {
					return "no resolver"
				}
				p, err := r.Resolve(e.h.expand(n))
				return p + " " + kindName(err)
			}
		case 4:
			n := pick(diffNames)
			desc = fmt.Sprintf("MkdirAll(%q)", n)
			step = func(e *env) string { return kindName(e.p.MkdirAll(e.h.expand(n))) }
		case 5, 6:
			n, data := pick(diffNames), pick(diffData)
			desc = fmt.Sprintf("Create(%q, %.10q)", n, data)
			step = func(e *env) string {
				cm, err := e.p.Create(e.h.expand(n), []byte(data), 0o644)
				return commitString(cm) + " " + kindName(err)
			}
		case 7, 8, 9:
			n, data, good := pick(diffNames), pick(diffData), rng.IntN(4) > 0
			withBytes := rng.IntN(2) == 0
			desc = fmt.Sprintf("Replace(%q, %.10q, good=%v)", n, data, good)
			step = func(e *env) string {
				cm, err := e.p.Replace(e.h.expand(n), []byte(data), e.expected(n, good, withBytes))
				return commitString(cm) + " " + kindName(err) + conflictString(err)
			}
		case 10, 11:
			n, good := pick(diffNames), rng.IntN(3) > 0
			desc = fmt.Sprintf("Remove(%q, good=%v)", n, good)
			step = func(e *env) string {
				cm, err := e.p.Remove(e.h.expand(n), e.expected(n, good, false))
				return commitString(cm) + " " + kindName(err) + conflictString(err)
			}
		case 12, 13:
			from, to, ow := pick(diffNames), pick(diffNames), rng.IntN(2) == 0
			desc = fmt.Sprintf("Rename(%q, %q, %v)", from, to, ow)
			step = func(e *env) string {
				cm, err := Rename(e.p, e.h.expand(from), e.h.expand(to), ow)
				return commitString(cm) + " " + kindName(err) + conflictString(err)
			}
		case 14:
			target, name := pick(diffTargets), pick(diffTop)
			desc = fmt.Sprintf("raw Symlink(%q, %q)", target, name)
			step = func(e *env) string {
				return errorOrNil(e.h.Symlink(e.h.expand(target), name))
			}
		case 15:
			name := pick(diffTop)
			desc = fmt.Sprintf("raw RemoveAll(%q)", name)
			step = func(e *env) string { return errorOrNil(e.h.RemoveAll(name)) }
		}
		ra, rb := step(ea), step(eb)
		log = append(log, fmt.Sprintf("%d %s -> %s", i, desc, ra))
		if ra != rb {
			t.Fatalf("seed %d step %d: %s\n a: %s\n b: %s\nsteps:\n%s", seed, i, desc, ra, rb, strings.Join(log, "\n"))
		}
	}
	ta, tb := ea.normTree(), eb.normTree()
	if !slices.Equal(ta, tb) {
		t.Fatalf("seed %d: final trees differ\n a: %q\n b: %q\nsteps:\n%s", seed, ta, tb, strings.Join(log, "\n"))
	}
	ea.settle("differential")
	eb.settle("differential")
}

// expected is what a caller would expect name to hold: its current bytes
// (good) or something else.
func (e *env) expected(name string, good, withBytes bool) fsys.Expected {
	cur := []byte("not what is there")
	if good {
		if data, err := e.p.ReadFile(e.h.expand(name)); err == nil {
			cur = data
		}
	}
	x := fsys.Expected{Version: fsys.VersionOf(cur)}
	if withBytes {
		x.Bytes = cur
	}
	return x
}

// normTree is the tree with the harness's absolute paths put back as
// "$ROOT" and "$OUTSIDE", so that trees of different backends compare.
func (e *env) normTree() []string {
	tree := e.tree()
	for i, l := range tree {
		if name, target, ok := strings.Cut(l, " => "); ok {
			if rest, ok := strings.CutPrefix(target, e.h.Dir); ok {
				target = "$ROOT" + rest
			} else if rest, ok := strings.CutPrefix(target, e.h.Outside); ok {
				target = "$OUTSIDE" + rest
			}
			tree[i] = name + " => " + target
		}
	}
	slices.Sort(tree)
	return tree
}

var kinds = []struct {
	name string
	err  error
}{
	{"outside", fsys.ErrOutside}, {"invalid", fsys.ErrInvalid}, {"not_found", fsys.ErrNotFound},
	{"not_regular", fsys.ErrNotRegular}, {"is_dir", fsys.ErrIsDir}, {"not_dir", fsys.ErrNotDir},
	{"exists", fsys.ErrExists}, {"conflict", fsys.ErrConflict}, {"not_empty", fsys.ErrNotEmpty},
	{"canceled", context.Canceled},
}

// kindName names the kind of err for comparison across backends.
func kindName(err error) string {
	if err == nil {
		return "ok"
	}
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return "other(" + err.Error() + ")"
}

func errorOrNil(err error) string {
	if err == nil {
		return "ok"
	}
	return "error"
}

func infoString(fi fsys.Info) string {
	if fi.Type == "" {
		return "-"
	}
	return fmt.Sprintf("%s:%s:%d:%d", fi.Name, fi.Type, fi.Size, fi.Links)
}

func commitString(cm fsys.Commit) string {
	return fmt.Sprintf("%s%q", cm.Resolved, cm.Notes)
}

func conflictString(err error) string {
	var ce *fsys.ConflictError
	if errors.As(err, &ce) {
		return " found " + ce.Found.Short()
	}
	return ""
}
