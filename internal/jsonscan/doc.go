// Package jsonscan is the one strict JSON scanner of the module: it walks
// JSON text once and hands its callers the exact bytes of values and of
// object members, without decoding them. Package tools uses it to find the
// arguments of a call (and word what is malformed), package mcpserver to
// split a JSON-RPC line on the stdio fast path.
//
// It checks the JSON grammar of RFC 8259: structure, numbers, literals and
// string syntax, with a nesting limit so that hostile input cannot exhaust
// the stack. String contents (escapes, control characters, UTF-8) are
// checked only when the caller asks for it (Options.CheckStrings); a caller
// that decodes every string it keeps can leave that to its decoder and
// find the end of a long string at memory speed.
//
// This package must not do IO, decode values, allocate while scanning, or
// make decisions that belong to its callers: which keys an object may have,
// whether a repeated key is an error, what a value's type must be. It
// reports syntax and nothing else.
package jsonscan
