package main

import (
	"strings"
	"testing"
)

// stet diff, stet undo --session/--turn/--dry-run and --receipt: a session
// whose file a person changed is refused whole; another is undone and
// redone by its undo receipts.
func TestDiffAndUndoSets(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "bee\n"})
	w.ok("--session", "ag", "read", "a.txt")
	w.ok("--session", "ag", "read", "b.txt")
	w.ok("--session", "ag", "turn", "--request-file", "/dev/null")
	w.ok("--session", "ag", "edit", "a.txt", "--old-string", "two", "--new-string", "TWO")
	w.ok("--session", "ag", "edit", "b.txt", "--old-string", "bee", "--new-string", "BEE")
	if r := w.ok("--session", "ag", "diff"); !strings.Contains(r.stdout, "== a.txt +1 -1") || !strings.Contains(r.stdout, "+TWO") {
		t.Fatalf("diff:\n%s", r.stdout)
	}
	if r := w.ok("--session", "ag", "diff", "--limit", "1"); !strings.Contains(r.stdout, "--offset 1 for more") {
		t.Fatalf("diff page:\n%s", r.stdout)
	}
	w.put("b.txt", "a person's bee\n")
	r := w.run("", "--session", "ag", "undo", "--json")
	if r.code != 3 || r.json(t)["path"] != "b.txt" {
		t.Fatalf("undo over a person's edit: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
	if w.get("a.txt") != "one\nTWO\n" {
		t.Fatal("a refused undo changed a.txt")
	}
	if r := w.ok("--session", "ag", "undo", "--turn", "1", "--dry-run", "a.txt"); !strings.Contains(r.stdout, "dry run") || w.get("a.txt") != "one\nTWO\n" {
		t.Fatalf("dry run:\n%s", r.stdout)
	}
	r = w.ok("--session", "ag", "undo", "--turn", "1", "a.txt", "--json")
	if w.get("a.txt") != "one\ntwo\n" {
		t.Fatalf("a.txt after undo: %q", w.get("a.txt"))
	}
	id := r.json(t)["receipts"].([]any)[0].(map[string]any)["id"].(string)
	w.ok("undo", "--receipt", id)
	if w.get("a.txt") != "one\nTWO\n" {
		t.Fatalf("a.txt after redo: %q", w.get("a.txt"))
	}
	if r := w.run("", "review", "--addr", "0.0.0.0:0"); r.code == 0 || !strings.Contains(r.stderr, "not a loopback address") {
		t.Fatalf("review on a non-loopback address: exit %d %s", r.code, r.stderr)
	}
}
