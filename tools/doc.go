// Package tools holds what stet tells models and clients about its tools and
// how it reads what they send back: the tool catalog (names, titles,
// descriptions written for models, MCP annotations), the JSON Schemas of
// arguments and results, tool definitions in the MCP, OpenAI and Anthropic
// formats, the server instructions, and Decode, which turns a call's JSON
// arguments into a typed argument struct or an *ArgError a model can act on
// (SPEC section 4, rule 1: types, unknown keys with the nearest known key,
// missing arguments, and values no call could accept).
//
// The facade, the MCP server and the CLI all decode through this package, so
// a tool has one set of arguments and one set of words on every surface.
//
// This package must not touch the disk or any other IO, and must not make
// policy decisions: whether a path is inside the workspace, whether a file
// was read, whether a change is allowed belong to the fsys backends and
// package policy. Decode judges only what the arguments say on their own.
package tools
