//go:build linux

package local_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/local"
)

// outsideLayout makes base/ws (the root) and base/out, whose every byte
// the tests hash before and after.
func outsideLayout(t *testing.T) (base, ws, out string) {
	base = t.TempDir()
	ws = filepath.Join(base, "ws")
	out = filepath.Join(base, "out")
	must(t, os.MkdirAll(filepath.Join(ws, "d"), 0o755))
	must(t, os.MkdirAll(filepath.Join(out, "sub"), 0o755))
	must(t, os.MkdirAll(filepath.Join(out, "outside-only"), 0o755))
	must(t, os.WriteFile(filepath.Join(out, "secret"), []byte("SECRET"), 0o644))
	must(t, os.WriteFile(filepath.Join(out, "sub", "secret"), []byte("SECRET"), 0o644))
	must(t, os.WriteFile(filepath.Join(ws, "d", "secret"), []byte("inside"), 0o644))
	must(t, os.WriteFile(filepath.Join(ws, "plain"), []byte("inside"), 0o644))
	return base, ws, out
}

func outsideDigest(t *testing.T, base string) string {
	t.Helper()
	d, err := digest(base, "ws")
	must(t, err)
	return d
}

// TestConfinementStatic: links that leave the workspace in every way; every
// operation through them is refused, and nothing outside changes.
func TestConfinementStatic(t *testing.T) {
	base, ws, out := outsideLayout(t)
	links := map[string]string{
		"direct":        "../out/secret",
		"abs":           filepath.Join(out, "secret"),
		"dangling":      "../out/missing",
		"abs-dangling":  filepath.Join(out, "missing"),
		"chain1":        "chain2",
		"chain2":        "d/chain3",
		"d/chain3":      "../../out/secret",
		"dir":           "../out",
		"absdir":        out,
		"dirchain":      "dir",
		"up":            "..",
		"root-slash":    "/",
		"proc":          "/proc/self/root" + out,
		"in-then-out":   "d/../../out/secret",
		"d/deep-escape": "../../../../../../../../" + out,
	}
	for name, target := range links {
		must(t, os.Symlink(target, filepath.Join(ws, filepath.FromSlash(name))))
	}
	before := outsideDigest(t, base)
	for _, noEx := range []bool{false, true} {
		l := openRoot(t, ws, local.Options{NoExchange: noEx})
		secret := fsys.Expected{Version: fsys.VersionOf([]byte("SECRET")), Bytes: []byte("SECRET")}
		names := []string{"direct", "abs", "dangling", "abs-dangling", "chain1", "dir/secret", "absdir/secret",
			"dirchain/secret", "dir/sub/secret", "up/out/secret", "root-slash", "proc", "in-then-out",
			"d/deep-escape", "../out/secret", "d/../../out/secret", "dir/new", "absdir/new", "dirchain/sub/new"}
		for _, name := range names {
			ops := map[string]error{}
			data, err := l.ReadFile(name)
			if bytes.Contains(data, []byte("SECRET")) {
				t.Fatalf("ReadFile(%q) returned outside bytes", name)
			}
			ops["read"] = err
			_, ops["stat"] = l.Stat(name)
			_, ops["list"] = l.ReadDir(name)
			_, ops["replace"] = l.Replace(name, []byte("pwned"), secret)
			_, ops["remove"] = l.Remove(name, secret)
			_, ops["create"] = l.Create(name, []byte("pwned"), 0o644)
			ops["mkdir"] = l.MkdirAll(name + "/x")
			_, ops["rename from"] = l.Rename(name, "stolen", secret, nil)
			_, ops["rename to"] = l.Rename("plain", name, fsys.Expected{}, &secret)
			_, ops["resolve"] = l.Resolve(name)
			_, ops["lock"] = l.Lock(t.Context(), name)
			for op, err := range ops {
				if err == nil {
					t.Errorf("%s %q succeeded", op, name)
				} else if !errors.Is(err, fsys.ErrOutside) {
					t.Errorf("%s %q: %v, want outside", op, name, err)
				}
			}
		}
		if got := outsideDigest(t, base); got != before {
			t.Fatalf("NoExchange=%v: the outside changed", noEx)
		}
	}
	data, err := os.ReadFile(filepath.Join(ws, "plain"))
	if err != nil || string(data) != "inside" {
		t.Fatalf("plain: %q %v", data, err)
	}
}

// TestConfinementSwapDuringCommit swaps the file's directory, or the file
// itself, for a link that leaves, at the instant before the swap. The
// commit may land inside (it holds the directory it resolved) or be
// refused, but nothing outside may change.
func TestConfinementSwapDuringCommit(t *testing.T) {
	needExchange(t)
	for _, noEx := range []bool{false, true} {
		for _, what := range []string{"dir", "file"} {
			base, ws, _ := outsideLayout(t)
			must(t, os.Symlink("../out", filepath.Join(ws, "d-out")))
			must(t, os.Symlink("../../out/secret", filepath.Join(ws, "d", "secret-out")))
			before := outsideDigest(t, base)
			swap := func(string) {
				if what == "dir" {
					must(t, exchangePaths(filepath.Join(ws, "d"), filepath.Join(ws, "d-out")))
				} else {
					must(t, exchangePaths(filepath.Join(ws, "d", "secret"), filepath.Join(ws, "d", "secret-out")))
				}
			}
			l := openRoot(t, ws, local.Options{NoExchange: noEx, Hooks: fsys.Hooks{BeforeSwap: swap}})
			inside := fsys.Expected{Version: fsys.VersionOf([]byte("inside")), Bytes: []byte("inside")}
			secret := fsys.Expected{Version: fsys.VersionOf([]byte("SECRET")), Bytes: []byte("SECRET")}
			for _, exp := range []fsys.Expected{inside, secret} {
				l.Replace("d/secret", []byte("pwned"), exp)
				l.Remove("d/secret", exp)
				l.Create("d/new", []byte("pwned"), 0o644)
			}
			if got := outsideDigest(t, base); got != before {
				t.Fatalf("NoExchange=%v swap %s: the outside changed", noEx, what)
			}
		}
	}
}

// TestConfinementRacingSwaps flips a directory and a file between inside
// versions and links that leave, as fast as it can, while every operation
// runs against them. Reads must never return outside bytes and nothing
// outside may change.
func TestConfinementRacingSwaps(t *testing.T) {
	needExchange(t)
	base, ws, _ := outsideLayout(t)
	must(t, os.Symlink("../out", filepath.Join(ws, "d-out")))
	must(t, os.Symlink(filepath.Join(base, "out", "secret"), filepath.Join(ws, "plain-out")))
	before := outsideDigest(t, base)
	l := openRoot(t, ws, local.Options{})

	var stop atomic.Bool
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stop.Store(true)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			exchangePaths(filepath.Join(ws, "d"), filepath.Join(ws, "d-out"))
			exchangePaths(filepath.Join(ws, "plain"), filepath.Join(ws, "plain-out"))
		}
	}()
	inside := fsys.Expected{Version: fsys.VersionOf([]byte("inside")), Bytes: []byte("inside")}
	secret := fsys.Expected{Version: fsys.VersionOf([]byte("SECRET")), Bytes: []byte("SECRET")}
	landed := 0
	for i := range 500 {
		for _, name := range []string{"d/secret", "plain", "d/sub/secret"} {
			if data, _ := l.ReadFile(name); bytes.Contains(data, []byte("SECRET")) {
				t.Fatalf("ReadFile(%q) returned outside bytes", name)
			}
			if infos, err := l.ReadDir("d"); err == nil {
				for _, fi := range infos {
					if fi.Name == "outside-only" {
						t.Fatal("ReadDir listed the outside directory")
					}
				}
			}
			exp := inside
			if i%2 == 1 {
				exp = secret
			}
			if _, err := l.Replace(name, []byte("inside"), exp); err == nil {
				landed++
			}
			if _, err := l.Create(name, []byte("inside"), 0o644); err == nil {
				landed++
			}
			l.MkdirAll("d/sub/x")
			l.Rename(name, name, fsys.Expected{}, &fsys.Expected{Version: fsys.VersionOf([]byte("inside"))})
		}
	}
	stop.Store(true)
	wg.Wait()
	if got := outsideDigest(t, base); got != before {
		t.Fatal("the outside changed")
	}
	t.Logf("%d commits landed inside while the links flipped", landed)
}
