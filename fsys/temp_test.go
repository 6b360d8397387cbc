package fsys_test

import (
	"errors"
	"testing"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/memfs"
)

// A provider without temp files gets the fallbacks: no temp name, a plain
// Create, a refused RemoveTemp, sweeps that remove nothing.
func TestTempFallbacks(t *testing.T) {
	m := memfs.New()
	leftover := ".stet-tmp-2147483600-00000000deadbeef"
	if err := m.WriteFile(leftover, []byte("left"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := noOpener{m}
	if name := fsys.TempName(p); name != "" {
		t.Errorf("TempName without a TempFiler = %q, want none", name)
	}
	if _, err := fsys.CreateAs(p, "new", []byte("x"), 0o644, "ignored"); err != nil {
		t.Errorf("CreateAs without a TempFiler: %v, want a plain create", err)
	}
	if err := fsys.RemoveTemp(p, leftover); !errors.Is(err, fsys.ErrInvalid) {
		t.Errorf("RemoveTemp without a TempFiler: %v, want invalid", err)
	}
	if n, err := fsys.Sweep(p, nil); n != 0 || err != nil {
		t.Errorf("Sweep without a Sweeper: %d, %v", n, err)
	}
	if n, err := fsys.SweepDir(p, "."); n != 0 || err != nil {
		t.Errorf("SweepDir without a DirSweeper: %d, %v", n, err)
	}
	if b, err := m.ReadFile(leftover); err != nil || string(b) != "left" {
		t.Fatalf("the fallbacks touched %s: %q, %v", leftover, b, err)
	}
	// The backend's own capabilities are used when it has them.
	if fsys.TempName(m) == "" {
		t.Error("TempName with a TempFiler made no name")
	}
	if n, err := fsys.Sweep(m, nil); n != 1 || err != nil {
		t.Errorf("Sweep with a Sweeper removed %d, %v; want the leftover", n, err)
	}
}
