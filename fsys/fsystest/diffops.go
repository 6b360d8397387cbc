package fsystest

import (
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/stet-dev/stet/fsys"
)

// The steps of a differential run (diffOps). Each draws its arguments
// from r when it is made, so both backends play the very same step.

func diffReadFile(r *diffRand) (string, func(e *env) string) {
	n := r.pick(diffNames)
	return fmt.Sprintf("ReadFile(%q)", n), func(e *env) string {
		data, err := e.p.ReadFile(e.h.expand(n))
		return fmt.Sprintf("%q %s", data, kindName(err))
	}
}

func diffStat(r *diffRand) (string, func(e *env) string) {
	n := r.pick(diffNames)
	return fmt.Sprintf("Stat(%q)", n), func(e *env) string {
		fi, err := e.p.Stat(e.h.expand(n))
		return infoString(fi) + " " + kindName(err)
	}
}

func diffReadDir(r *diffRand) (string, func(e *env) string) {
	n := r.pick(diffNames)
	return fmt.Sprintf("ReadDir(%q)", n), func(e *env) string {
		infos, err := e.p.ReadDir(e.h.expand(n))
		return infosString(infos) + " " + kindName(err)
	}
}

func diffReadDirTypes(r *diffRand) (string, func(e *env) string) {
	n := r.pick(diffNames)
	return fmt.Sprintf("ReadDirTypes(%q)", n), func(e *env) string {
		infos, err := fsys.ReadDirTypes(e.p, e.h.expand(n))
		return typesString(infos) + " " + kindName(err)
	}
}

func diffResolve(r *diffRand) (string, func(e *env) string) {
	n := r.pick(diffNames)
	return fmt.Sprintf("Resolve(%q)", n), func(e *env) string {
		res, ok := e.p.(fsys.Resolver)
		if !ok {
			return "no resolver"
		}
		p, err := res.Resolve(e.h.expand(n))
		return p + " " + kindName(err)
	}
}

func diffMkdirAll(r *diffRand) (string, func(e *env) string) {
	n := r.pick(diffNames)
	return fmt.Sprintf("MkdirAll(%q)", n), func(e *env) string { return kindName(e.p.MkdirAll(e.h.expand(n))) }
}

func diffCreate(r *diffRand) (string, func(e *env) string) {
	n, data := r.pick(diffNames), r.pick(diffData)
	return fmt.Sprintf("Create(%q, %.10q)", n, data), func(e *env) string {
		cm, err := e.p.Create(e.h.expand(n), []byte(data), 0o644)
		return commitString(cm) + " " + kindName(err)
	}
}

func diffReplace(r *diffRand) (string, func(e *env) string) {
	n, data, good := r.pick(diffNames), r.pick(diffData), r.rng.IntN(4) > 0
	withBytes := r.rng.IntN(2) == 0
	return fmt.Sprintf("Replace(%q, %.10q, good=%v)", n, data, good), func(e *env) string {
		cm, err := e.p.Replace(e.h.expand(n), []byte(data), e.expected(n, good, withBytes))
		return commitString(cm) + " " + kindName(err) + conflictString(err)
	}
}

func diffRemove(r *diffRand) (string, func(e *env) string) {
	n, good := r.pick(diffNames), r.rng.IntN(3) > 0
	return fmt.Sprintf("Remove(%q, good=%v)", n, good), func(e *env) string {
		cm, err := e.p.Remove(e.h.expand(n), e.expected(n, good, false))
		return commitString(cm) + " " + kindName(err) + conflictString(err)
	}
}

func diffRename(r *diffRand) (string, func(e *env) string) {
	from, to, ow := r.pick(diffNames), r.pick(diffNames), r.rng.IntN(2) == 0
	return fmt.Sprintf("Rename(%q, %q, %v)", from, to, ow), func(e *env) string {
		cm, err := Rename(e.p, e.h.expand(from), e.h.expand(to), ow)
		return commitString(cm) + " " + kindName(err) + conflictString(err)
	}
}

func diffSymlink(r *diffRand) (string, func(e *env) string) {
	target, name := r.pick(diffTargets), r.pick(diffTop)
	return fmt.Sprintf("raw Symlink(%q, %q)", target, name), func(e *env) string {
		return errorOrNil(e.h.Symlink(e.h.expand(target), name))
	}
}

func diffRemoveAll(r *diffRand) (string, func(e *env) string) {
	name := r.pick(diffTop)
	return fmt.Sprintf("raw RemoveAll(%q)", name), func(e *env) string { return errorOrNil(e.h.RemoveAll(name)) }
}

// diffOpenDir opens a directory and every entry in it through the Dir.
func diffOpenDir(r *diffRand) (string, func(e *env) string) {
	n := r.pick(diffNames)
	return fmt.Sprintf("OpenDir(%q) and its entries", n), func(e *env) string {
		d, err := fsys.OpenDir(e.p, e.h.expand(n))
		if err != nil {
			return kindName(err)
		}
		defer d.Close()
		ents, err := fsys.ReadDirTypes(e.p, e.h.expand(n))
		out := []string{kindName(err)}
		for _, ent := range ents {
			f, info, err := d.Open(ent.Name)
			var data []byte
			if err == nil {
				data, err = io.ReadAll(f)
				f.Close()
			}
			out = append(out, fmt.Sprintf("%s:%q:%s:%s", ent.Name, data, infoString(info), kindName(err)))
		}
		return strings.Join(out, ",")
	}
}

// Temp files, as a killed commit leaves them: named by a process that is
// gone (deadPID) or by this one (the backend's own pid), in the
// directories of diffTempDirs (through a link, or where there is none).
var (
	diffTempDirs = []string{".", "d", "d/e", "ld", "nowhere"}
	diffPlanted  = []struct {
		dead   bool
		random string
	}{{true, "00000000000000aa"}, {true, "00000000000000bb"}, {false, "00000000000000aa"}, {false, "00000000000000bb"}}
)

// planted is the base name of planted temp file i (diffPlanted) for e.
func (e *env) planted(i int) string {
	pid := deadPID
	if tp, ok := e.p.(fsys.TempFiler); ok && !diffPlanted[i].dead {
		pid = ownPID(e.t, tp)
	}
	return plantedTemp(pid, diffPlanted[i].random)
}

// isPlanted reports whether name is a planted temp file of e.
func (e *env) isPlanted(name string) bool {
	for i := range diffPlanted {
		if path.Base(name) == e.planted(i) {
			return true
		}
	}
	return false
}

func diffPlant(r *diffRand) (string, func(e *env) string) {
	dir, i := r.pick(diffTempDirs), r.rng.IntN(len(diffPlanted))
	return fmt.Sprintf("raw WriteFile(%s/planted temp %d)", dir, i), func(e *env) string {
		return errorOrNil(e.h.WriteFile(dir+"/"+e.planted(i), []byte("left"), 0o644))
	}
}

// diffTempCommit replaces or creates through a fresh temp name or a
// planted one (taken where it was planted beside the file).
func diffTempCommit(r *diffRand) (string, func(e *env) string) {
	n, i, create := r.pick(diffNames), r.rng.IntN(len(diffPlanted)+1), r.rng.IntN(2) == 0
	return fmt.Sprintf("temp commit(%q, planted temp %d, create=%v)", n, i, create), func(e *env) string {
		temp := fsys.TempName(e.p)
		if i < len(diffPlanted) {
			temp = e.planted(i)
		}
		var cm fsys.Commit
		var err error
		if create {
			cm, err = fsys.CreateAs(e.p, e.h.expand(n), []byte("made"), 0o644, temp)
		} else {
			x := e.expected(n, true, false)
			x.Temp = temp
			cm, err = e.p.Replace(e.h.expand(n), []byte("replaced"), x)
		}
		return commitString(cm) + " " + kindName(err)
	}
}

func diffSweep(r *diffRand) (string, func(e *env) string) {
	skip := r.pick(diffTempDirs)
	return fmt.Sprintf("Sweep(skip %q)", skip), func(e *env) string {
		var asked []string
		n, err := fsys.Sweep(e.p, func(dir string) bool {
			asked = append(asked, dir)
			return dir == skip
		})
		slices.Sort(asked)
		return fmt.Sprintf("%d %q %s", n, asked, kindName(err))
	}
}

func diffSweepDir(r *diffRand) (string, func(e *env) string) {
	n := r.pick(slices.Concat(diffNames, diffTempDirs))
	return fmt.Sprintf("SweepDir(%q)", n), func(e *env) string {
		removed, err := fsys.SweepDir(e.p, e.h.expand(n))
		return fmt.Sprintf("%d %s", removed, kindName(err))
	}
}

func diffRemoveTemp(r *diffRand) (string, func(e *env) string) {
	dir, i := r.pick(slices.Concat(diffTempDirs, []string{"a", "lo", ".."})), r.rng.IntN(len(diffPlanted)+1)
	return fmt.Sprintf("RemoveTemp(%s/planted temp %d)", dir, i), func(e *env) string {
		name := dir + "/.stet-tmp-junk"
		if i < len(diffPlanted) {
			name = dir + "/" + e.planted(i)
		}
		return kindName(fsys.RemoveTemp(e.p, name))
	}
}

func infosString(infos []fsys.Info) string {
	var s []string
	for _, fi := range infos {
		s = append(s, infoString(fi))
	}
	return strings.Join(s, ",")
}

// typesString shows only what ReadDirTypes promises: names and types.
func typesString(infos []fsys.Info) string {
	var s []string
	for _, fi := range infos {
		s = append(s, fi.Name+":"+string(fi.Type))
	}
	return strings.Join(s, ",")
}

// heldOps are the operations diffHeld plays through a Handle.
var heldOps = []string{"Stat", "ReadFile", "Open", "Check", "Replace", "Remove", "Create", "Trace"}

// diffHeld holds a name (fsys.Hold: the backend's Holder, or the walking
// Handle of one without) and plays one operation through the Handle, which
// must answer as the backend's own method on the name does.
func diffHeld(r *diffRand) (string, func(e *env) string) {
	n, data, op := r.pick(diffNames), r.pick(diffData), r.pick(heldOps)
	good, withBytes := r.rng.IntN(4) > 0, r.rng.IntN(2) == 0
	return fmt.Sprintf("Hold(%q).%s(%.10q, good=%v)", n, op, data, good), func(e *env) string {
		x := e.expected(n, good, withBytes)
		h, err := fsys.Hold(e.p, e.h.expand(n))
		if err != nil {
			return "hold " + kindName(err)
		}
		defer h.Close()
		switch op {
		case "Stat":
			fi, err := h.Stat()
			return infoString(fi) + " " + kindName(err)
		case "ReadFile":
			data, err := h.ReadFile()
			return fmt.Sprintf("%q %s", data, kindName(err))
		case "Open":
			rc, fi, err := h.Open()
			if err != nil {
				return kindName(err)
			}
			defer rc.Close()
			data, err := io.ReadAll(rc)
			return fmt.Sprintf("%q %s %s", data, infoString(fi), errorOrNil(err))
		case "Check":
			ok, err := h.Check(x)
			return fmt.Sprintf("%v %s", ok, kindName(err))
		case "Replace":
			cm, err := h.Replace([]byte(data), x)
			return commitString(cm) + " " + kindName(err) + conflictString(err)
		case "Remove":
			cm, err := h.Remove(x)
			return commitString(cm) + " " + kindName(err) + conflictString(err)
		case "Create":
			cm, err := h.Create([]byte(data), 0o644, fsys.Expected{})
			return commitString(cm) + " " + kindName(err)
		}
		return strings.Join(h.Trace(), " ")
	}
}
