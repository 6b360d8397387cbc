// Package local is the confined host backend of fsys: every operation stays
// beneath one directory, the root, opened once with os.Root. It is the one
// place where stet reads and changes a user's files: every tool, the CLI
// and the MCP server reach the disk through it, and it implements every
// optional capability fsys declares (locks, tracing, chunked checks,
// directory handles, names held for a call, temp files named ahead,
// sweeps, the handover of replaced bytes; on Windows, all but the held
// names and the handover).
//
// # Confinement
//
// A name is checked first (no NUL byte, nothing absolute, no ".." above the
// root), then walked one component at a time with Root.Lstat and
// Root.Readlink. Symlinks are followed while they stay beneath the root:
// relative targets, and absolute targets that name a place under the root's
// path (as opened, or its real path). A link that leaves, directly, dangling,
// or through a chain of links, fails with fsys.ErrOutside before anything
// beyond it is touched. The resolved path is then opened through the Root,
// and single-component calls on directory descriptors obtained from it never
// follow a final symlink, so a path swapped for a symlink after the walk
// still cannot reach outside: the kernel refuses it, not this package.
//
// Names are cleaned lexically first: "a/../b" is "b" even when a is a
// symlink.
//
// Hold (fsys.Holder, on Unix) walks a name once and keeps the directory
// that holds what it resolves to open: the Handle's reads, stats, lock and
// changes are openat, fstatat and renameat on that descriptor. Since a
// descriptor follows its directory wherever it is renamed, every change,
// through a Handle or by name, on every system, checks just before its
// swap, under the directory lock, that the directory it holds is still
// the one at its path beneath the root (device and inode against a fresh
// Root.Stat; on Windows volume serial number and file index against a
// fresh Root.Open), and fails with fsys.ErrMoved, changing nothing,
// otherwise.
//
// # Commits
//
// Create, Replace and Remove never write into an existing file. New bytes go
// to a temp file in the target's directory (exclusive create, named
// TempPrefix, the process id, "-" and 16 random hex digits from
// Options.Rand, crypto/rand by default: IsTempName; a fresh name that is
// taken is replaced by another, a caller's chosen one is refused), are
// written and fsynced (with F_FULLFSYNC on macOS), given the old file's
// metadata, then swapped in:
//
//   - Replace uses renameat2(RENAME_EXCHANGE) on Linux and
//     renameatx_np(RENAME_SWAP) on macOS, then compares the
//     swapped-out bytes with the expected ones and swaps back on a mismatch
//     (fsys.ErrConflict). Where the exchange is missing it re-reads, compares
//     and renames over, which leaves a window of microseconds in which
//     another writer's change can be lost; Commit.Fallback says so.
//   - Create uses renameat2(RENAME_NOREPLACE) (macOS: renameatx_np with
//     RENAME_EXCL), or link-then-unlink: it fails
//     with fsys.ErrExists rather than replace anything.
//   - Remove renames the file to a temp name, compares, then unlinks (or
//     renames it back).
//
// The swap and its check run under an exclusive flock(2) on the directory,
// held for that instant only (not during the write or the fsync), so the
// commits of every stet process in one directory never build on each
// other's unchecked bytes. Readers take it shared for the instant of their
// open (Dir.OpenEach: of a batch of opens in one directory, never of the
// reads). Both waits are bounded (Options.LockWait, DefaultLockWait): a lock
// another program keeps on the directory (flock(1), a backup tool) ends the
// call with fsys.ErrBusy and a *fsys.BusyError naming the directory, after
// which nothing was read or changed. The directory is fsynced after each commit. A
// crash at any instant leaves the old bytes or the new bytes at the name,
// and perhaps a temp file, which Sweep removes once the process that made
// it is gone (and never anything else: see Sweep), or RemoveTemp removes by
// name.
//
// The sequence is written once, for every system (commit.go for Create,
// Replace and Remove, move.go for Rename), as os.Root writes its walk
// once. What differs per system is a primitive: the directory handle and
// its single-component calls, identity and flush (handle_unix.go,
// handle_windows.go), the directory locks (lock_unix.go,
// lock_windows.go), the temp file's metadata (tempfile_unix.go,
// tempfile_windows.go), and the exchange, the rename that refuses a taken
// name and the open-writer check (platform_<os>.go, which also declares
// what they can do for docs/platforms.md). A primitive a system lacks
// answers errNotHere, and the sequence takes the path it takes for a
// filesystem that refuses the call.
//
// # Windows
//
// On Windows the same sequence runs over primitives built from os.Root
// (one per directory for the single-component steps): a compare then a
// replacing rename under the directory lock (no exchange exists, so
// Commit.Fallback is always set and no compare-and-swap is claimed
// against programs that do not take the lock), a hard link then a removal
// for a create that never replaces, FlushFileBuffers for the file's bytes
// (directories are not flushed), LockFileEx on one byte of a per-user lock
// file for the directory locks, and the moved-directory check by volume
// serial number and file index. A writer holding the file open is not
// seen. Only the read-only flag of a mode is kept. Names Windows reads as
// devices or as other files are refused (see docs/platforms.md). This is
// compiled and vetted, not run.
//
// # Limits
//
//   - Hard links: a file with several names is replaced by rename, so the
//     other names keep the old bytes (Commit.Notes says so). A hard link
//     inside the root to a file elsewhere is the same file to the kernel: it
//     can be read, though never written in place.
//   - Bind mounts and other mounts beneath the root are followed like any
//     directory; os.Root does not stop at filesystem boundaries.
//   - NFS and other network filesystems: exclusive create, rename and fsync
//     are only as atomic and durable as the server makes them, and
//     RENAME_EXCHANGE is often missing there (the fallback is used).
//   - Filesystems without RENAME_EXCHANGE or RENAME_NOREPLACE (macOS:
//     RENAME_SWAP or RENAME_EXCL, which APFS has and FAT, exFAT and network
//     filesystems commonly lack), and systems other than Linux and macOS,
//     take the fallback paths described above.
//   - Metadata of a replaced file: the mode (setuid, setgid and sticky
//     included) is kept exactly; the owner and group are kept where this
//     process may set them (root: always; another user: the group, if a
//     member), and a Commit note says when they could not be; extended
//     attributes this process can read (user.*, security.*, ACLs) are copied
//     on Linux, and those flistxattr shows on macOS (not its ACLs), skipped
//     where the filesystem or privileges refuse them, and not copied at all
//     elsewhere. Create sets the mode it is given exactly,
//     not through the umask, so a restored file gets its recorded mode back.
//     The inode number, times and hard links are not kept (a rename makes a
//     new inode).
//   - Another process holding the old file open for writing: on Linux a
//     replace, remove or move over the file is refused with
//     fsys.ErrOpenWriter when a read lease cannot be placed on it, just
//     before the swap. Elsewhere, and where the lease cannot tell (a file
//     of another owner, a filesystem without leases, a writer that opens
//     the file after the check), the writer may still write into the old
//     file after the swap; those bytes are lost with the old file.
//   - Between an exchange and its undo on a conflict (microseconds), a reader
//     can see the refused bytes. A program that does not take the directory
//     lock and writes the name in that instant keeps its write; what the
//     conflict found is then dropped as superseded.
//   - Commits on different files of one directory wait for each other only
//     during the swap and check, which reads the old file once.
//   - Locks (fsys.Locker) are in-process and keyed by resolved path; two
//     hard-linked names are two keys.
//
// The package builds on Unix systems and Windows; the atomic swap and
// no-clobber paths are Linux and macOS only.
//
// This package must not decide policy (what may be read or changed is the
// caller's rule; here only what can be reached), must not keep receipts or
// a journal, and must not follow a name out of the root by any path. No
// other package may open a user's path on the host: they go through here.
package local
