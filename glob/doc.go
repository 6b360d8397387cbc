// Package glob matches slash-separated relative names against the glob
// patterns of stet's --protect and --deny-read flags, of the exclude
// argument of list, find and grep, and of the find and grep tools: one
// matcher for all of them (github.com/bmatcuk/doublestar/v4 underneath).
//
// The syntax:
//
//   - "*" matches any run of characters within one segment, "?" one
//     character; neither matches a "/";
//   - "[abc]", "[a-z]" a character class, "[!abc]" or "[^abc]" a negated
//     one; a class never matches a "/" (and may not contain one);
//   - "{ts,tsx}" brace alternatives, nested or holding a "/":
//     "**/*.{ts,tsx}", "{src,lib}/**/*.go"; at most MaxAlternatives
//     spelt out per pattern;
//   - "\" escapes the next character: "\*", "\[", "\{", "\\";
//   - "**" as a whole segment matches zero or more segments:
//     "a/**/b" matches "a/b", "a/x/b" and "a/x/y/b";
//   - a pattern ending in "/**" also matches the directory itself:
//     ".git/**" matches ".git", ".git/config" and ".git/a/b";
//   - a pattern ending in "/" means the same with "/**" appended:
//     "build/" matches "build" and everything under it;
//   - a pattern with no "/" matches the base name at any depth:
//     "*.pem" matches "k.pem" and "a/b/k.pem"; "*.{ts,tsx}" matches
//     "src/a.tsx";
//   - a pattern starting with "/" is anchored at the root and matches the
//     whole name: "/k.pem" matches "k.pem" but not "a/k.pem". Any other
//     pattern containing a "/" is anchored too: "a/*.go" does not match
//     "x/a/b.go" (write "**/a/*.go" for that).
//
// Compile checks a pattern once (Valid only checks it) and returns a
// Pattern for many names. Pattern.Match matches the name itself.
// Pattern.Covers adds gitignore's rule for directories: a pattern that
// matches a directory covers everything under it, so "secrets" covers
// "app/secrets/key.txt". A pattern from CompileFold also matches the other
// spellings a filesystem may take for the same name: letter case, Unicode
// normalization, the code points HFS+ ignores, trailing dots (Fold gives the
// key names are compared on); CoversFold compiles one such pattern and asks
// Covers. A leading "!" is not special (there is no negation), and a
// trailing "/" does not restrict a pattern to directories.
//
// "**" inside a segment ("a**b") is two stars, the same as "*"; so is any
// longer run of stars. A pattern from Compile is case-sensitive and
// byte-exact: names are expected in the form io/fs.ValidPath accepts (no
// leading "/", no "." or ".." segments, no empty segments), and a pattern
// with an empty, "." or ".." segment (in any of its alternatives) is
// malformed.
//
// Gitignore files are not read with this package: package ignore keeps
// git's own wildmatch rules (no braces), so that stet skips exactly what git
// ignores.
//
// The package is pure: it does no IO and keeps no state.
package glob
