package stet_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// A read opens the path its one walk resolved without walking the name
// again; whatever that open cannot take (a directory, a name gone since)
// is left to the walking open, so the refusal names what the name is, as
// it did when every read walked twice.
func TestReadOpensWhatItResolved(t *testing.T) {
	_, s, root := open(t, map[string]string{"d/a.txt": "one\ntwo\n"}, stet.Options{})
	if err := os.Symlink("d/a.txt", filepath.Join(root, "link")); err != nil {
		t.Skipf("symlink: %v", err)
	}
	res, err := s.Read(ctx, stet.ReadArgs{Path: "link"})
	if err != nil || !strings.Contains(res.Frame, "00002|two") {
		t.Fatalf("read through an in-root link: %+v, %v", res, err)
	}
	_, err = s.Read(ctx, stet.ReadArgs{Path: "d"})
	var ref *stet.Refusal
	if !errors.As(err, &ref) || ref.Kind != stet.KindNotRegular || !strings.Contains(ref.Message, "d is a directory; use list") {
		t.Fatalf("read of a directory: %v, want the not_regular refusal that names a directory", err)
	}
	_, err = s.Read(ctx, stet.ReadArgs{Path: "d/gone.txt"})
	if !errors.As(err, &ref) || ref.Kind != stet.KindNotFound {
		t.Fatalf("read of a missing file: %v, want not_found", err)
	}
}
