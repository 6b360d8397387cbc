package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A file name with a line break and terminal control bytes cannot forge
// what a person reads: the write's message, the diff header, a stet log
// row, stet diff and stet show all show it escaped, one line where it
// stands, and no raw escape byte reaches the terminal.
func TestNamesAreEscapedInEveryText(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows file names cannot hold control characters")
	}
	root, state := t.TempDir(), t.TempDir()
	t.Chdir(root)
	evil := "notes\n+++ b/forged.txt\n+fake line\x1b[2K.txt"
	cli := func(stdin string, args ...string) (int, string) {
		t.Helper()
		var out, errb bytes.Buffer
		code := run(context.Background(), append([]string{"--state", state, "--root", root}, args...), strings.NewReader(stdin), &out, &errb)
		return code, out.String() + errb.String()
	}
	if code, out := cli("", "list", "."); code != 0 {
		t.Fatalf("list: %d %s", code, out)
	}
	code, out := cli("hello\n", "write", "--stdin", evil)
	if code != 0 {
		t.Fatalf("write: %d %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(root, evil)); err != nil {
		t.Fatalf("the file itself keeps its name: %v", err)
	}
	texts := map[string]string{"write": out}
	_, texts["log"] = cli("", "log")
	_, texts["diff"] = cli("", "diff", "--session", "default")
	id := strings.Fields(texts["log"])[0]
	_, texts["show"] = cli("", "show", id)
	for face, text := range texts {
		if strings.Contains(text, "\x1b") {
			t.Errorf("%s prints a raw escape byte: %q", face, text)
		}
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "+++ b/forged") || strings.HasPrefix(line, "+fake") {
				t.Errorf("%s shows a forged line %q:\n%s", face, line, text)
			}
		}
	}
	if n := strings.Count(strings.TrimSpace(texts["log"]), "\n") + 1; n != 1 {
		t.Errorf("stet log shows %d rows for 1 receipt:\n%s", n, texts["log"])
	}
}
