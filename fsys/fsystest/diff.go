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
// seed, against fresh harnesses made by mkA and mkB, each over the same
// small tree of files, directories and links (inside, leaving, absolute,
// dangling, chained), with temp files left as a killed commit leaves them.
// It fails if the backends have different optional capabilities
// (Capabilities), at the first result (value or error kind) that differs,
// and if the final trees differ or anything outside either root changed.
func Differential(t *testing.T, mkA, mkB func(t *testing.T) Harness, seed uint64, steps int) {
	ha, hb := mkA(t), mkB(t)
	Build(t, ha, diffTree...)
	Build(t, hb, diffTree...)
	ea := newEnvOn(t, ha, fsys.Hooks{})
	eb := newEnvOn(t, hb, fsys.Hooks{})
	if ca, cb := Capabilities(ea.p), Capabilities(eb.p); !slices.Equal(ca, cb) {
		t.Fatalf("the backends differ in capabilities, which the comparison would not exercise:\n a: %v\n b: %v", ca, cb)
	}
	r := &diffRand{rng: rand.New(rand.NewPCG(seed, seed^0x5eed))}
	var log []string
	for i := range steps {
		desc, step := r.step()
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
	for _, e := range []*env{ea, eb} {
		e.settleWithout(e.isPlanted)
	}
}

// diffRand draws the steps of one differential run.
type diffRand struct{ rng *rand.Rand }

func (r *diffRand) pick(s []string) string { return s[r.rng.IntN(len(s))] }

// A diffOp makes one step: its description and the function that plays it
// on one backend, returning what the backend answered as a string.
type diffOp func(r *diffRand) (desc string, step func(e *env) string)

// diffOps are the operations a differential run draws from, each as often
// as it is listed.
var diffOps = []diffOp{
	diffReadFile, diffStat, diffReadDir, diffResolve, diffMkdirAll,
	diffCreate, diffCreate, diffReplace, diffReplace, diffReplace,
	diffRemove, diffRemove, diffRename, diffRename, diffSymlink, diffRemoveAll,
	diffReadDirTypes, diffOpenDir, diffTempCommit, diffPlant, diffPlant,
	diffSweep, diffSweepDir, diffRemoveTemp, diffHeld, diffHeld, diffHeld,
}

func (r *diffRand) step() (string, func(e *env) string) {
	return diffOps[r.rng.IntN(len(diffOps))](r)
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
