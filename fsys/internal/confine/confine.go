package confine

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/winpath"
)

// MaxHops caps the symlinks one walk follows, as Linux does.
const MaxHops = 40

// ErrLoop is the cause of an ErrInvalid walk that met more than MaxHops
// symlinks.
var ErrLoop = errors.New("too many levels of symbolic links")

// Clean checks a provider name and returns it in canonical form: cleaned
// lexically, slash-separated, "." for the root. An empty name or one with a
// NUL byte is ErrInvalid; an absolute name or one that climbs above the root
// with ".." is ErrOutside. Errors are *fsys.PathError with op and name.
//
// On Windows a backslash is a separator like the slash, a drive letter,
// "\\?\" or UNC prefix makes a name absolute (ErrOutside), and a name
// winpath.Check refuses is ErrInvalid.
func Clean(op, name string) (string, error) {
	return clean(op, name, runtime.GOOS == "windows")
}

// clean is Clean, with Windows' rules when windows is true (for tests on
// every system).
func clean(op, spelled string, windows bool) (string, error) {
	name := spelled // errors name the spelling the caller gave
	if windows {
		name = strings.ReplaceAll(name, `\`, "/")
	}
	switch {
	case name == "":
		return "", fsys.E(op, spelled, fsys.ErrInvalid, errors.New("empty path"))
	case strings.IndexByte(name, 0) >= 0:
		return "", fsys.E(op, spelled, fsys.ErrInvalid, errors.New("NUL byte in path"))
	case path.IsAbs(name) || filepath.IsAbs(name) || windows && hasVolume(name):
		return "", fsys.E(op, spelled, fsys.ErrOutside, errors.New("absolute path"))
	}
	if windows {
		if err := winpath.Check(name); err != nil {
			return "", fsys.E(op, spelled, fsys.ErrInvalid, err)
		}
	}
	c := path.Clean(name)
	if c != "." && !filepath.IsLocal(filepath.FromSlash(c)) {
		return "", fsys.E(op, spelled, fsys.ErrOutside, nil)
	}
	return c, nil
}

// Tree is what a backend tells the walk. Every rel it is asked about is a
// clean path whose parents the walk has seen as directories, not symlinks.
type Tree interface {
	// Lstat describes rel without following it. Nothing at rel is an error
	// matching fs.ErrNotExist.
	Lstat(rel string) (fs.FileInfo, error)
	// Readlink returns the target of the symlink at rel.
	Readlink(rel string) (string, error)
}

// Result is where a walk ended.
type Result struct {
	// Path is the resolved path, relative to the root and free of symlinks
	// (at the time of the walk), or "." for the root. When Info is nil it
	// is the first component that does not exist.
	Path string
	// Info describes Path; nil when nothing is there.
	Info fs.FileInfo
	// Rest are the components after a missing Path that the walk could not
	// visit; empty when only the final component is missing.
	Rest []string
	// FinalLink is true when the final component of the name was a symlink
	// that the walk followed.
	FinalLink bool
	// Hops counts the symlinks followed.
	Hops int
	// Links are the paths of the symlinks followed, in the order met, each
	// relative to the root with symlink-free parents: with the resolved
	// path, every name the walk passed through on the way to its end.
	Links []string
}

// Exists reports whether the walk found something at its end.
func (r Result) Exists() bool { return r.Info != nil }

// Full returns Path with Rest appended: the path the name designates
// (possibly not existing), or ErrOutside if Rest climbs above the root.
func (r Result) Full() (string, bool) {
	if len(r.Rest) == 0 {
		return r.Path, true
	}
	p := path.Join(append([]string{r.Path}, r.Rest...)...)
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, true
}

// Walk resolves the cleaned name in t. It follows every symlink on the way,
// and the final one too when follow is true. A relative target is read
// against the directory holding the link; an absolute target must lie under
// one of abs (the root's absolute paths), and is then read from the root.
// A target that leaves the root, directly or through a chain of links, fails
// with ErrOutside before anything beyond it is looked at; a component that
// is not a directory fails with ErrNotDir; more than MaxHops links fail with
// ErrInvalid. Errors from t other than "not exist" are returned unchanged.
func Walk(t Tree, op, name string, follow bool, abs []string) (Result, error) {
	var res Result
	parts := split(name)
	var done []string
	var last fs.FileInfo
	for len(parts) > 0 {
		c := parts[0]
		parts = parts[1:]
		if last != nil && !last.IsDir() {
			// Anything after a non-directory, even "." or "..".
			return Result{}, fsys.E(op, name, fsys.ErrNotDir, nil)
		}
		switch c {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return Result{}, fsys.E(op, name, fsys.ErrOutside, nil)
			}
			done = done[:len(done)-1]
			last = nil
			continue
		}
		cur := join(done, c)
		fi, err := t.Lstat(cur)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				res.Path = cur
				res.Rest = parts
				return res, nil
			}
			return Result{}, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 && (len(parts) > 0 || follow) {
			res.Hops++
			res.Links = append(res.Links, cur)
			if res.Hops > MaxHops {
				return Result{}, fsys.E(op, name, fsys.ErrInvalid, ErrLoop)
			}
			target, err := t.Readlink(cur)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					// Gone since the Lstat: walk again from here.
					parts = append([]string{c}, parts...)
					continue
				}
				return Result{}, err
			}
			if target == "" || strings.IndexByte(target, 0) >= 0 {
				return Result{}, fsys.E(op, name, fsys.ErrNotFound, errors.New("empty symlink target"))
			}
			if len(parts) == 0 {
				res.FinalLink = true
			}
			if isAbs(target) {
				rel, ok := under(target, abs)
				if !ok {
					return Result{}, fsys.E(op, name, fsys.ErrOutside, nil)
				}
				if strings.HasSuffix(target, "/") {
					rel += "/" // "f/" must still be a directory
				}
				done = done[:0]
				target = rel
			}
			parts = append(split(target), parts...)
			last = nil
			continue
		}
		done = append(done, c)
		last = fi
	}
	res.Path = join(done, "")
	if last == nil {
		fi, err := t.Lstat(res.Path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return res, nil
			}
			return Result{}, err
		}
		last = fi
	}
	res.Info = last
	return res, nil
}

func under(p string, abs []string) (string, bool) {
	p = path.Clean(filepath.ToSlash(p))
	for _, a := range abs {
		a = path.Clean(filepath.ToSlash(a))
		if p == a {
			return ".", true
		}
		prefix := a
		if !strings.HasSuffix(prefix, "/") {
			prefix += "/"
		}
		if rel, ok := strings.CutPrefix(p, prefix); ok {
			return rel, true
		}
	}
	return "", false
}

func isAbs(target string) bool {
	return strings.HasPrefix(target, "/") || filepath.IsAbs(target)
}

func split(p string) []string {
	p = filepath.ToSlash(p)
	if p == "." {
		return nil
	}
	return strings.Split(p, "/")
}

func join(done []string, c string) string {
	n := len(done)
	if c != "" {
		n++
	}
	if n == 0 {
		return "."
	}
	var b strings.Builder
	for _, d := range done {
		b.WriteString(d)
		b.WriteByte('/')
	}
	if c != "" {
		b.WriteString(c)
		return b.String()
	}
	s := b.String()
	return s[:len(s)-1]
}

// NeedFile returns the error for a file operation that did not end on a
// regular file: ErrNotFound, ErrIsDir or ErrNotRegular; nil for a regular
// file.
func (r Result) NeedFile(op, name string) error { return NeedFile(op, name, r.Info) }

// NeedFile is Result.NeedFile for what fi describes (nil: nothing).
func NeedFile(op, name string, fi fs.FileInfo) error {
	switch {
	case fi == nil:
		return fsys.E(op, name, fsys.ErrNotFound, nil)
	case fi.IsDir():
		return fsys.E(op, name, fsys.ErrIsDir, nil)
	case !fi.Mode().IsRegular():
		return fsys.E(op, name, fsys.ErrNotRegular, nil)
	}
	return nil
}

// TypeOf maps a file mode to an fsys.Type.
func TypeOf(m fs.FileMode) fsys.Type {
	switch {
	case m.IsRegular():
		return fsys.TypeFile
	case m.IsDir():
		return fsys.TypeDir
	case m&fs.ModeSymlink != 0:
		return fsys.TypeSymlink
	}
	return fsys.TypeOther
}

// Kind returns the kind and cause of the *fsys.PathError in err's chain,
// or a nil kind and err itself when there is none.
func Kind(err error) (kind, cause error) {
	var pe *fsys.PathError
	if errors.As(err, &pe) {
		return pe.Kind, pe.Err
	}
	return nil, err
}

// hasVolume reports whether the slash-separated name starts with a drive
// letter ("C:") or the "//" of a UNC or "//?/" path.
func hasVolume(name string) bool {
	if strings.HasPrefix(name, "//") {
		return true
	}
	return len(name) >= 2 && name[1] == ':' &&
		('a' <= name[0] && name[0] <= 'z' || 'A' <= name[0] && name[0] <= 'Z')
}
