package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// sharedEdit is the receipt of one edit of the shared file that landed:
// the versions it read and left, and the text it added.
type sharedEdit struct {
	Receipt string `json:"receipt"`
	Client  int    `json:"client"`
	Before  string `json:"before"` // receipt.before.version
	After   string `json:"after"`  // receipt.after.version
	Added   string `json:"added"`  // the entry line the edit added
}

// versionOf is stet's version of bytes: "sha256:" and the hex digest.
func versionOf(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

// lostUpdates checks that the shared file's final bytes are explained by
// the receipts of the edits that landed on it, starting from initial:
// the receipts form one chain (each edit read the version the one before
// it left, from initial's version to final's), and final holds every
// edit's added line. It returns how many edits are not explained (0: no
// update lost) and the first problem found. Two edits that read the same
// version, an edit whose receipt names a version no chain reaches, a final
// version the chain does not end at, and an added line missing from the
// final bytes all count: each is an update some client was told landed
// and the file does not show.
func lostUpdates(initial, final []byte, edits []sharedEdit) (int, string) {
	byBefore := make(map[string]int, len(edits))
	lost, problem := 0, ""
	note := func(format string, a ...any) {
		lost++
		if problem == "" {
			problem = fmt.Sprintf(format, a...)
		}
	}
	for i, e := range edits {
		if j, dup := byBefore[e.Before]; dup {
			note("edits %s and %s both read version %s: one of them was applied over a version it never saw", edits[j].Receipt, e.Receipt, short(e.Before))
			continue
		}
		byBefore[e.Before] = i
	}
	cur := versionOf(initial)
	for range edits {
		i, ok := byBefore[cur]
		if !ok {
			break
		}
		delete(byBefore, cur)
		cur = edits[i].After
	}
	for _, i := range byBefore {
		note("edit %s read version %s, which no chain of receipts from the initial file reaches", edits[i].Receipt, short(edits[i].Before))
	}
	if fv := versionOf(final); cur != fv {
		note("the receipts' chain ends at version %s, but the file is at %s", short(cur), short(fv))
	}
	for _, e := range edits {
		if !bytes.Contains(final, []byte(e.Added)) {
			note("the line %q that edit %s added is not in the final file", e.Added, e.Receipt)
		}
	}
	return lost, problem
}

// short is the start of a version, for messages.
func short(v string) string {
	if len(v) > 19 {
		return v[:19] + "…"
	}
	return v
}
