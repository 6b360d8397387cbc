// Package textedit computes what an edit does to a file's bytes: literal
// matching of old_string, CRLF adaptation, diagnostics for a miss, and the
// unified diff shown to the model.
//
// ApplyContext runs a list of edits in order, each on the result of the one
// before, all or nothing, with cancellation and a bound on the result's size
// (*TooLargeError before anything is built), and reports the changed regions
// of the original bytes as receipt matches (edit.go); ApplyBuffers is
// ApplyContext building the texts in slices the caller lends. Many edits on
// a large text go through a suffix-array index instead of a scan per edit
// (index.go), with the same results. Splice applies regions a caller
// already located (a patch). A miss is a *NoMatchError whose Near describes
// the nearest region and what differs (near.go); several matches without
// replace_all are an *AmbiguousError naming their lines (errors.go). Diff,
// DiffCreate and DiffDelete render a unified diff that stays fast on large
// files with small changes (diff.go).
//
// What this package must not do:
//
//   - IO of any kind. Callers pass bytes in and get bytes back; reading,
//     writing, locking and verification belong elsewhere.
//   - Apply a fuzzy match. The only retry is old_string and new_string with
//     LF turned into CRLF, and only when the text uses CRLF and old_string has
//     no literal match. Whitespace, quote and similarity comparisons are used
//     only to describe a miss (NoMatchError.Near), never to change bytes.
//   - Touch bytes outside the matched regions: a BOM, tabs, line endings,
//     invalid UTF-8, NUL bytes and the presence or absence of a final newline
//     all survive.
//   - Feed model input to a diff library's apply functions.
package textedit
