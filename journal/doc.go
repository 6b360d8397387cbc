// Package journal is stet's durable memory: an append-only, hash-chained log
// of JSON-lines records plus a store of content-addressed blobs, kept as plain
// files under one state directory.
//
// The state directory holds:
//
//	journal.jsonl         one Record a line; each line carries "sha256:<hex>" of
//	                      the exact bytes of the line before it (Prev)
//	journal.lock          the lock file of appends; its first bytes record
//	                      how far the session index is complete
//	sessions/<hex>.jsonl  a byte-exact copy of every line of one session
//	                      (<hex> is the sha256 of the session id)
//	objects/<2>/<62>      blobs, named by the sha256 of their bytes; the 256
//	                      directories objects/00 … objects/ff are made all at
//	                      once, by the first Put or Adopt that finds them
//	                      missing
//	objects.layout        says those 256 directories exist and are durable
//	workspace.json        the workspace the directory serves (Claim)
//	deny-read.json        every deny-read glob it was opened with (RecordDenyRead)
//	cursors/              the values of Cursor and SetCursor, and the lock
//	                      files of Exclusive
//	live/                 the liveness lock of each handle that asked for one
//	                      (Live, Alive)
//
// The package is generic: records carry an opaque JSON payload, and the
// package knows nothing of tools, receipts or policy. Callers (the stet
// facade, the CLI) give the records their meaning.
//
// # Guarantees
//
//   - Appends from many goroutines and many processes are serialized by an
//     in-process mutex and an exclusive lock on journal.lock, so a CLI call
//     beside a running server shares one journal. Seq runs 1, 2, 3, ... without
//     gaps or duplicates.
//
//   - A changed, removed or reordered line breaks the chain; Verify names the
//     line. Verify also re-hashes every blob and cross-checks every session
//     index line against the log.
//
//   - A crash mid-append leaves at worst a torn last line (bytes without a
//     final newline). Readers skip it, Verify reports it as a warning, and the
//     next Append cuts it off before writing, so the chain stays valid.
//
//   - Blobs are written atomically (temp file, fsync, rename, fsync of the
//     directory) and checked against their name on every Get.
//
//   - Session reads only that session's index file: rebuilding one session
//     costs in proportion to the session, not to the journal. The index is
//     derived data: an index line is written only once the log line it
//     copies is durable, and the watermark moves over lines only once their
//     index lines are durable too, so a power cut never leaves an index line
//     the log lost. Until then a handle's readers take its own lines from
//     memory, and other handles take the lines the index lacks from the
//     log past the watermark; a flush (background, Flush, Close) or a
//     reader that finds the watermark too far behind completes it.
//
//   - Every reader checks the chain of what it uses before its callback
//     sees any of it: Scan checks every line's prev hash and that seqs rise
//     by one (a gap is corruption); Session checks each index line against
//     the log's line of the same seq (byte-exact) and that line's link to
//     the log line before it. A line that fails is ErrCorrupt, and no record
//     is handed out.
//
//   - A durable Append fsyncs only the log (fdatasync, shared by group
//     commit) and, once, a new state directory; the index files are fsynced
//     later by the flush. AppendLazy, Scan and Session never fsync, except
//     to complete an index whose watermark is unusable or far behind (a
//     crash, a compaction); Verify and Flush do, to sync what waits, and
//     Close of a handle that made a durable append fsyncs the index lines
//     whose log lines are durable.
//
//   - Compact rewrites the log behind a checkpoint record on line 1 (see
//     Checkpoint); handles of every process follow the new log.
//
// # Limits
//
// The hash chain detects accidents and casual edits; it is not a signature.
// Someone who can write the state directory can rewrite the whole chain and
// every index consistently, or append correctly chained lines to the log.
// An index line dropped from the middle of a session is not detected by
// Session (the log lines between two index lines are not read); Verify
// reports it. The stet facade keeps a state directory that lies inside a
// workspace out of every tool's reach. Durability relies on fsync; with
// Options.NoSync (for tests and benchmarks) a power loss may drop recent
// records. Locking uses flock on Unix, which is advisory and does not work
// across NFS on every system, and LockFileEx on Windows (on one byte far
// past what the files hold); platforms with neither are refused at Open.
//
// # What it must not do
//
// It opens nothing outside its state directory (every file access goes
// through an os.Root opened on it) and never reads or writes a user's
// workspace. It never rewrites or removes a complete line of journal.jsonl,
// except in Compact, which replaces the whole file.
// It keeps no global state.
package journal
