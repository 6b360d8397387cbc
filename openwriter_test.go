package stet_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// A file another process holds open for writing (a logger, tee -a) is not
// replaced or deleted: that writer would go on writing into the old file
// and every line after the change would be lost. The change is refused
// (conflict) naming what to do, the file keeps its bytes, and once the
// writer has closed it the same change lands.
func TestChangeRefusedWhileAnotherWriterHoldsTheFile(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("an open writer is detected on Linux only (a read lease)")
	}
	_, s, root := open(t, map[string]string{"app.log": "line 1\n", "old.log": "x\n"}, stet.Options{})
	name := filepath.Join(root, "app.log")
	w, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, s, "app.log")
	edit := stet.EditArgs{Path: "app.log", OldString: ptr("line 1"), NewString: ptr("line one")}
	_, err = s.Edit(ctx, edit)
	var ref *stet.Refusal
	if !errors.As(err, &ref) || ref.Kind != stet.KindConflict || !strings.Contains(ref.Message, "open for writing") {
		t.Fatalf("edit while a writer holds the file: %v", err)
	}
	// The refusal says who holds it (here the test's own process) and that
	// it stayed open through the wait.
	if self := fmt.Sprintf("pid %d (this process) has app.log open for writing and kept it open", os.Getpid()); !strings.Contains(ref.Message, self) {
		t.Errorf("the refusal does not name the writer (%q): %s", self, ref.Message)
	}
	if _, err := w.WriteString("line 2\n"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(name); string(b) != "line 1\nline 2\n" {
		t.Fatalf("app.log after the refused edit and a write: %q", b)
	}
	readAll(t, s, "old.log")
	d, err := os.OpenFile(filepath.Join(root, "old.log"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Delete(ctx, stet.DeleteArgs{Path: "old.log"}); !errors.As(err, &ref) || ref.Kind != stet.KindConflict {
		t.Fatalf("delete while a writer holds the file: %v", err)
	}
	// A move over a file another process writes unlinks it as surely.
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "new.log", Content: "n\n"}); err != nil {
		t.Fatal(err)
	}
	readAll(t, s, "app.log")
	if _, err := s.Move(ctx, stet.MoveArgs{From: "new.log", To: "app.log", Overwrite: true}); !errors.As(err, &ref) || ref.Kind != stet.KindConflict {
		t.Fatalf("move over a file another process writes: %v", err)
	}
	d.Close()
	w.Close()
	readAll(t, s, "app.log")
	if _, err := s.Edit(ctx, stet.EditArgs{Path: "app.log", OldString: ptr("line 2"), NewString: ptr("line two")}); err != nil {
		t.Fatalf("edit once the writer closed the file: %v", err)
	}
	if _, err := s.Delete(ctx, stet.DeleteArgs{Path: "old.log"}); err != nil {
		t.Fatalf("delete once the writer closed the file: %v", err)
	}
}
