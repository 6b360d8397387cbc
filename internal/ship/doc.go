// Package ship copies a state directory's journal to PostgreSQL (through
// package fleetdb): every line, the blobs the lines name, and what the
// host sees of each change (whether its file still holds the result, and
// those bytes, so the fleet review can show the diff).
//
// The local journal stays the write-ahead record: shipping reads it and
// never waits on the writer, and a writer never waits on shipping. Each
// pass starts where the database says the journal's chain stops, checks
// that the local line there is the one the database holds (a fork is
// refused, named), and sends the rest in batches, blobs before the lines
// that name them, so a crash or a kill at any point leaves a prefix of the
// chain and a retry sends only what is missing.
//
// Deny-read: a line about a file a deny-read rule hides (its path, a
// move's source, any file of an intent or snapshot) is sent redacted: its
// place in the chain and its columns, never its bytes, and no blob it
// names; such a file's current bytes are never read.
//
// What it must not do: write to the local journal or the workspace, read
// a workspace file except through the confined fsys/local provider, or
// hold up a caller: Run works in the background and only logs.
package ship
