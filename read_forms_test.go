package stet_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// A 1x1 PNG.
var tinyPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")

func TestReadTail(t *testing.T) {
	_, s, root := open(t, map[string]string{"five.txt": "1\n2\n3\n4\n5\n", "bare.txt": "a\nb\nc", "one.txt": "x\n"}, stet.Options{})
	for _, tc := range []struct {
		path  string
		tail  int
		frame string
	}{
		{"five.txt", 2, "00004|4\n00005|5\n00006|\n(lines 4-6 of 6; end of file)"},
		{"five.txt", 1, "00005|5\n00006|\n(lines 5-6 of 6; end of file)"},
		{"five.txt", 50, "00001|1\n00002|2\n00003|3\n00004|4\n00005|5\n00006|\n(6 lines)"},
		{"bare.txt", 2, "00002|b\n00003|c\n(lines 2-3 of 3; end of file)"},
		{"one.txt", 1, "00001|x\n00002|\n(2 lines)"},
	} {
		r, err := s.Read(ctx, stet.ReadArgs{Path: tc.path, Tail: tc.tail})
		if err != nil {
			t.Fatalf("%s tail %d: %v", tc.path, tc.tail, err)
		}
		if r.Frame != tc.frame {
			t.Errorf("%s tail %d:\n got %q\nwant %q", tc.path, tc.tail, r.Frame, tc.frame)
		}
	}
	// A tail counts as seen: the last line can be edited; an unseen one
	// cannot.
	os.WriteFile(filepath.Join(root, "five.txt"), []byte("1\n2\n3\n4\n5\n6\n"), 0o644)
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "five.txt", Tail: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Edit(ctx, stet.EditArgs{Path: "five.txt", OldString: ptr("5\n"), NewString: ptr("five\n")}); err != nil {
		t.Errorf("edit after tail: %v", err)
	}
	if _, err := s.Edit(ctx, stet.EditArgs{Path: "five.txt", OldString: ptr("1\n"), NewString: ptr("one\n")}); kindOf(err) != "not_seen" {
		t.Errorf("edit of a line the tail did not show: %v", err)
	}
	// A streamed file (over the whole-read size).
	var big bytes.Buffer
	for i := 1; i <= 600_000; i++ {
		big.WriteString("line\n")
	}
	big.WriteString("last")
	if err := os.WriteFile(filepath.Join(root, "big.txt"), big.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := s.Read(ctx, stet.ReadArgs{Path: "big.txt", Tail: 2})
	if err != nil {
		t.Fatal(err)
	}
	if want := "600000|line\n600001|last\n(lines 600000-600001 of 600001; end of file)"; r.Frame != want {
		t.Errorf("big tail: %q, want %q", r.Frame, want)
	}
}

func TestReadPaths(t *testing.T) {
	_, s, root := open(t, map[string]string{"a.txt": "A\n", "b.txt": "B\n"}, stet.Options{})
	os.WriteFile(filepath.Join(root, "bin.dat"), []byte("x\x00y"), 0o644)
	out, err := s.Call(ctx, "read", []byte(`{"paths":["a.txt","missing.txt","bin.dat","b.txt"]}`))
	if err != nil || out.Refused != nil {
		t.Fatalf("read paths: %v %v", err, out.Refused)
	}
	r := out.Structured.(*stet.ReadFilesResult)
	var kinds []string
	for _, f := range r.Files {
		switch f := f.(type) {
		case *stet.ReadResult:
			kinds = append(kinds, f.Path)
		case *stet.Refusal:
			kinds = append(kinds, f.Kind)
		}
	}
	if got := strings.Join(kinds, " "); got != "a.txt not_found binary b.txt" {
		t.Errorf("files: %s", got)
	}
	for _, want := range []string{"==> a.txt <==\n00001|A\n", "==> missing.txt <==\nrefused: missing.txt does not exist", "==> b.txt <==\n00001|B"} {
		if !strings.Contains(out.Text, want) {
			t.Errorf("text %q lacks %q", out.Text, want)
		}
	}
	// Each file read is its own observation.
	for _, p := range []string{"a.txt", "b.txt"} {
		if _, err := s.Edit(ctx, stet.EditArgs{Path: p, OldString: ptr(strings.TrimSuffix(p, ".txt")), NewString: ptr("z")}); err == nil {
			continue
		} else if kindOf(err) == "not_read" {
			t.Errorf("%s not observed by read with paths", p)
		}
	}
}

func TestReadMedia(t *testing.T) {
	_, s, root := open(t, nil, stet.Options{MaxMediaBytes: 1 << 10})
	os.WriteFile(filepath.Join(root, "dot.png"), tinyPNG, 0o644)
	os.WriteFile(filepath.Join(root, "big.png"), append(bytes.Clone(tinyPNG), make([]byte, 2<<10)...), 0o644)
	os.WriteFile(filepath.Join(root, "sound.flac"), []byte("fLaC\x00\x00\x00\x22rest"), 0o644)
	os.WriteFile(filepath.Join(root, "pic.svg"), []byte(`<svg xmlns="http://www.w3.org/2000/svg"></svg>`), 0o644)
	r, err := s.Read(ctx, stet.ReadArgs{Path: "dot.png"})
	if err != nil {
		t.Fatal(err)
	}
	if r.MimeType != "image/png" || !bytes.Equal(r.Data, tinyPNG) || r.Frame != "" || r.Bytes != len(tinyPNG) {
		t.Errorf("png read: %+v", r)
	}
	if a, err := s.Read(ctx, stet.ReadArgs{Path: "sound.flac"}); err != nil || a.MimeType != "audio/flac" {
		t.Errorf("flac read: %+v %v", a, err)
	}
	if v, err := s.Read(ctx, stet.ReadArgs{Path: "pic.svg"}); err != nil || v.MimeType != "" || !strings.HasPrefix(v.Frame, "00001|<svg") {
		t.Errorf("svg is text: %+v %v", v, err)
	}
	_, err = s.Read(ctx, stet.ReadArgs{Path: "big.png"})
	if r, ok := stet.AsRefusal(err); !ok || r.Kind != "too_large" || !strings.Contains(r.Message, "1,024-byte limit") {
		t.Errorf("big png: %v", err)
	}
	// The read observed that version: deleting the image is allowed.
	if _, err := s.Delete(ctx, stet.DeleteArgs{Path: "dot.png"}); err != nil {
		t.Errorf("delete after a media read: %v", err)
	}
}

func TestInfo(t *testing.T) {
	_, s, root := open(t, map[string]string{"a.txt": "one\ntwo\n", "d/x": ""}, stet.Options{})
	os.WriteFile(filepath.Join(root, "bin.dat"), []byte("x\x00y"), 0o600)
	r, err := s.Info(ctx, stet.InfoArgs{Path: "a.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Type != "file" || r.Size != 8 || r.Lines != 3 || r.Mode != "0644" || r.Links != 1 || r.Mtime == "" ||
		r.Version != "sha256:"+sha256hex("one\ntwo\n") {
		t.Errorf("info a.txt: %+v", r)
	}
	if b, err := s.Info(ctx, stet.InfoArgs{Path: "bin.dat"}); err != nil || b.Lines != 0 || b.Mode != "0600" || b.Version == "" {
		t.Errorf("info bin.dat: %+v %v", b, err)
	}
	if d, err := s.Info(ctx, stet.InfoArgs{Path: "d"}); err != nil || d.Type != "dir" || d.Version != "" {
		t.Errorf("info d: %+v %v", d, err)
	}
	if _, err := s.Info(ctx, stet.InfoArgs{Path: "nope"}); kindOf(err) != "not_found" {
		t.Errorf("info nope: %v", err)
	}
	// Info observes nothing.
	if _, err := s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("one"), NewString: ptr("1")}); kindOf(err) != "not_read" {
		t.Errorf("edit after info: %v, want not_read", err)
	}
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "d/new.txt", Content: "x"}); kindOf(err) != "not_read" {
		t.Errorf("write into a directory info described: %v, want not_read", err)
	}
}

func sha256hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
