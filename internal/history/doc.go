// Package history owns the journal's on-disk format as stet writes it: the
// payload type of every record a session, a commit, an intent or a
// client's own tool appends (receipt, undo, observe, dir, created, turn,
// refusal, snapshot, intent, done, client_intent, client_done), their
// encoding (Encode, Decode), the undo index built from those records
// (Undos: which receipt is undone by which; Index: each key's changes and
// the last one an undo takes back), the set of open intents (Intents: an
// intent is open until a done record names it; gc also keeps one left
// unresolved) and the lookup of a receipt's preimage from the blobs and
// records it names (Preimage, Invert).
//
// The field names and their order are a contract: records written by one
// version are read by the next, so a change of a JSON tag or of a field's
// place changes the journal's bytes. The golden files under testdata pin
// every record type's encoded line (go test ./internal/history -update
// rewrites them), so such a change is seen in review.
//
// What it must not do: open, read or write a user's file, or any path of
// the workspace. It sees only the journal (through the journal package's
// reader and blob store) and the bytes its callers pass in. It imports the
// journal, receipt, policy (the seen ranges of an observation) and textedit
// packages, and nothing of the facade.
package history
