// Package mcpserver serves stet's tools over the Model Context Protocol, on
// stdio or streamable HTTP, using github.com/modelcontextprotocol/go-sdk.
//
// It is a translation layer and nothing more: every tools/call becomes one
// [stet.Session.Call], and the facade's answer goes back as an MCP tool
// result (structured content: the CLI --json shape; text: what a model
// reads; isError for a refusal). Tool names, descriptions, schemas and
// annotations come from package tools; every rule about files comes from the
// facade and package policy. What this package owns is the wire:
//
//   - one stet session per client connection, and the _meta keys
//     stet/session, stet/request and stet/inputs on a call;
//   - a stdio transport that answers a malformed line with a JSON-RPC parse
//     error and an oversized one with an error reply, and keeps serving
//     (go-sdk's own stdio transport ends the session on either); once a
//     session is initialized it answers tools/call itself, through the same
//     handler, reading the arguments without decoding them and encoding the
//     result once (go-sdk still handles every other message);
//   - bearer-token checks on HTTP;
//   - asking a client for its roots (roots/list), which the facade uses to
//     narrow the workspace for that connection (stet.Session.Within), or,
//     for a server made with no workspace (stet mcp with no --root), opens
//     as that connection's workspace; with none, every call is refused,
//     saying how to name a root (roots.go);
//   - the size of a response, kept under what MCP clients accept;
//   - the review-stall counter of SPEC section 8, per session;
//   - the reference profile (Options.Profile, stet mcp --tools reference):
//     the reference filesystem server's tool names, arguments and text
//     results, each a translation to facade calls, with refusals reworded
//     so that their next step names a reference tool (reference_words.go).
//
// This package must not decide what a tool may do to a file, read or write a
// file itself, or word refusals of its own beyond the wire's (bad _meta,
// stalled reads, oversized results, no root to serve). Whether a path lies inside the roots a
// client announced is the facade's to decide, on the resolved path.
package mcpserver
