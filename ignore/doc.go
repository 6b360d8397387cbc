// Package ignore decides which paths git would ignore, from the patterns of
// .gitignore files, .git/info/exclude, the global excludes file and .ignore
// files, with git's semantics:
//
//   - a UTF-8 byte-order mark at the start of a file is skipped (one mark,
//     there only), as git skips it in every ignore file;
//   - a blank line or one starting with "#" is no pattern; trailing spaces
//     are dropped unless escaped with a backslash; "\#" and "\!" start a
//     pattern with a literal "#" or "!";
//   - "!" negates: a path it matches is not ignored, unless a directory
//     above it is (git never looks inside an ignored directory, and neither
//     does a walk that uses this package);
//   - a trailing "/" matches directories only;
//   - a pattern with no other "/" matches the base name at any depth under
//     its file's directory; one with a "/" at the start or in the middle is
//     matched against the path relative to that directory;
//   - "*", "?" and "[...]" never match "/"; "**/" at the start, "/**/" in the
//     middle and "/**" at the end match any number of directories (zero or
//     more; "/**" at the end one or more levels below); any other "**" is "*".
//
// Precedence follows git: a Stack is ordered from the least to the most
// specific list (global excludes, info/exclude, then each directory's files
// from the root down, .ignore after .gitignore), and the last pattern that
// matches decides. Matching is byte-wise and case-sensitive (core.ignoreCase
// is not read).
//
// Parse reads one file's patterns from bytes the caller read (stet's walk
// reads each .gitignore, .ignore and info/exclude through the workspace's
// provider); Stack.Ignored decides; Wildmatch is git's matcher alone.
//
// The package is pure except for GlobalExcludesPath and GlobalExcludes,
// which read the user's environment, git configuration and global excludes
// file (outside every workspace root, never a user's project file). It must
// not read a workspace's files itself.
package ignore
