package ship

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/local"
	"github.com/stet-dev/stet/policy"
)

// maxFileBytes bounds the current bytes of a file shipped for the review.
const maxFileBytes = 16 << 20

// roots places a journal's paths in the workspace's roots and decides
// which are hidden by deny-read.
type roots struct {
	dirs  []string
	rules []policy.Rules
	fs    []fsys.Provider // opened on first read; nil until then
	tried []bool
}

func newRoots(dirs []string, stateDir string, denyRead []string) *roots {
	r := &roots{dirs: dirs, fs: make([]fsys.Provider, len(dirs)), tried: make([]bool, len(dirs))}
	for _, d := range dirs {
		rules := policy.Rules{DenyRead: denyRead}
		if rel, err := filepath.Rel(d, stateDir); err == nil && filepath.IsLocal(rel) {
			rules.State = []string{filepath.ToSlash(rel)}
		}
		r.rules = append(r.rules, rules.Compiled())
	}
	return r
}

// keyForm is a file key: "<root index>:<path in the root>".
var keyForm = regexp.MustCompile(`^([0-9]+):(.*)$`)

// places returns every (root, relative path) p may name: as a file key,
// and as a display path (relative to the first root, or absolute inside
// one). A name that could be read either way is both.
func (r *roots) places(p string) [][2]string {
	var out [][2]string
	if m := keyForm.FindStringSubmatch(p); m != nil {
		if i, err := strconv.Atoi(m[1]); err == nil && i < len(r.dirs) {
			out = append(out, [2]string{strconv.Itoa(i), m[2]})
		}
	}
	native := filepath.FromSlash(p)
	if filepath.IsAbs(native) {
		for i, d := range r.dirs {
			if rel, err := filepath.Rel(d, native); err == nil && filepath.IsLocal(rel) {
				out = append(out, [2]string{strconv.Itoa(i), filepath.ToSlash(rel)})
			}
		}
	} else if len(r.dirs) > 0 {
		out = append(out, [2]string{"0", p})
	}
	return out
}

// denied reports whether any name p may be is hidden by deny-read (or
// lies in the state directory). A name placed in no root is not a file
// of the workspace and hides nothing.
func (r *roots) denied(p string) bool {
	for _, pl := range r.places(p) {
		i, _ := strconv.Atoi(pl[0])
		if _, ok := r.rules[i].Denied(pl[1]); ok {
			return true
		}
	}
	return false
}

// current is what a file holds now, as the host sees it.
type current struct {
	exists, dir bool
	// kept: the name now leads, through a symlink, to a file deny-read
	// hides; nothing of that file is read.
	kept bool
	b    []byte // nil: unreadable, too large, or not to be shipped (several hard links)
}

// read returns what display path p holds now; hidden reports a name
// deny-read hides (nothing is read).
func (r *roots) read(p string) (c current, hidden bool) {
	if r.denied(p) {
		return c, true
	}
	pl := r.places(p)
	if len(pl) == 0 {
		return c, false
	}
	i, _ := strconv.Atoi(pl[len(pl)-1][0])
	rel := pl[len(pl)-1][1]
	if !r.tried[i] {
		r.tried[i] = true
		if l, err := local.Open(r.dirs[i], local.Options{}); err == nil {
			r.fs[i] = l
		}
	}
	if r.fs[i] == nil {
		return c, false
	}
	// The name is resolved once and held: every symlink on the way and
	// the file it leads to are asked of deny-read, as the tools ask them,
	// and what is read is what was asked.
	h, err := fsys.Hold(r.fs[i], rel)
	if err != nil {
		return c, false // a link out of the root: nothing of the workspace
	}
	defer h.Close()
	for _, hop := range h.Trace() {
		if _, ok := r.rules[i].Denied(hop); ok {
			c.exists, c.kept = true, true
			return c, false
		}
	}
	info, err := h.Stat()
	if err != nil {
		return c, false
	}
	c.exists = true
	if info.Type == fsys.TypeDir {
		c.dir = true
		return c, false
	}
	// A file with several hard links may be a hidden file under another
	// name: its bytes stay here.
	if info.Type != fsys.TypeFile || info.Links > 1 {
		return c, false
	}
	// Too large or unreadable: seen, not read (c.b stays nil).
	if b, err := fsys.ReadHeldMax(h, rel, maxFileBytes); err == nil {
		c.b = b
	}
	return c, false
}

// trimKey drops a file key's root prefix for messages.
func trimKey(p string) string {
	if m := keyForm.FindStringSubmatch(p); m != nil {
		return m[2]
	}
	return strings.TrimSpace(p)
}
