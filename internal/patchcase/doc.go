// Package patchcase reads the patch scenarios of testdata/patch-scenarios:
// an input tree, a patch, and the tree the patch must leave, one scenario a
// file, so that the CLI, the MCP server and the library can each run every
// scenario and be held to the same expected tree.
//
// A scenario file is in the txtar format: a comment, then sections, each
// opened by a line "-- NAME --". The sections are:
//
//	want            what the call must do, one statement a line (below)
//	patch           the patch text, exactly as a model sends it
//	input/PATH      a file of the tree before the call
//	expected/PATH   a file of the tree after it (when it lands)
//
// A PATH ending in "/" is an empty directory. A section whose name ends in
// " (no final newline)" holds its text without the last "\n" (txtar cannot
// say that otherwise). The statements of want are:
//
//	lands                the call succeeds and leaves exactly the expected tree
//	refused KIND         the call is refused with KIND and leaves the input tree
//	receipts N           it lands with N receipts
//	message TEXT         the result's text contains TEXT (several allowed)
//	observe all|list|none  what the session sees first: every input file read
//	                     and every directory listed (all, the default), only
//	                     the directories listed, or nothing
//	codex NAME           the scenario recreates Codex's apply-patch fixture NAME
//	differs RULE         where the Codex fixture expects otherwise: the stet
//	                     rule that decides it
//
// This package is for tests only; it does no IO but Load and the tree helpers.
package patchcase
