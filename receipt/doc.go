// Package receipt defines the record of one mutation (SPEC section 6) and
// checks it against the bytes that were actually written.
//
// Receipt, State and Match are the record (receipt.go), as the journal
// stores it and every surface shows it; StateOf and Lines compute a State
// from bytes, FormatMode and ParseMode its permission text.
//
// Verify is the independent check at the end of every commit: given the
// preimage, the bytes read back after the swap, and the receipt, it confirms
// without recomputing the edit that the matched regions held their old
// bytes, that every other byte survived unchanged and in order, that the
// replaced regions hold their new bytes, that nothing else was added, and
// that the recorded versions, sizes and line counts are those of the bytes.
// VerifyShape is the same check without the two hashes, for a caller that
// has just compared the file on disk with the new bytes and derived the
// versions itself.
//
// This package must not do IO, and must not import the code that computes
// edits (textedit, patch): a verifier that shares the editor's logic shares
// its bugs.
package receipt
