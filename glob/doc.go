// Package glob matches slash-separated relative names against the glob
// patterns of stet's --protect and --deny-read flags and of the find and
// grep tools.
//
// The syntax is path.Match's, applied one path segment at a time, plus:
//
//   - "**" as a whole segment matches zero or more segments:
//     "a/**/b" matches "a/b", "a/x/b" and "a/x/y/b";
//   - a pattern ending in "/**" also matches the directory itself:
//     ".git/**" matches ".git", ".git/config" and ".git/a/b";
//   - a pattern ending in "/" means the same with "/**" appended:
//     "build/" matches "build" and everything under it;
//   - a pattern with no "/" matches the base name at any depth:
//     "*.pem" matches "k.pem" and "a/b/k.pem";
//   - a pattern starting with "/" is anchored at the root and matches the
//     whole name: "/k.pem" matches "k.pem" but not "a/k.pem". Any other
//     pattern containing a "/" is anchored too: "a/*.go" does not match
//     "x/a/b.go" (write "**/a/*.go" for that).
//
// Match matches the name itself. Covers adds gitignore's rule for
// directories: a pattern that matches a directory covers everything under
// it, so "secrets" covers "app/secrets/key.txt". CoversFold is Covers for
// filesystems that fold case. A leading "!" is not special (there is no
// negation), and a trailing "/" does not restrict a pattern to directories.
//
// "*", "?" and character classes never match a "/"; a "/" may not appear
// in a class or after a backslash. "**" inside a segment ("a**b") is two
// stars, the same as "*". Match and Covers are case-sensitive and byte-exact: names
// are expected in the form io/fs.ValidPath accepts (no leading "/", no "."
// or ".." segments, no empty segments).
//
// The package is pure: it does no IO and keeps no state.
package glob
