// Package mcpserver serves stet's tools over the Model Context Protocol, on
// stdio or streamable HTTP (sessions with Mcp-Session-Id, and the stateless
// requests of MCP 2026-07-28), using github.com/modelcontextprotocol/go-sdk
// for everything but the hot path of a tool call.
//
// It translates and owns no rule about files. On stet's own tools a
// tools/call runs as one facade call, [stet.Session.CallFit], which checks
// the arguments and runs the tool; the facade's Output goes back as an MCP
// tool result (structured content: the CLI --json shape; text: what a
// model reads; isError for a refusal), a read whose answer would pass the
// response bound being asked again for a smaller window (readFit). On the
// reference profile (Options.Profile, stet mcp --tools reference) the
// arguments of each of the reference filesystem server's tools are decoded
// by package tools (tools.Reference, the decoder of stet's own tools) and
// mapped onto the stet tool it is built on (reference_call.go: a read, an
// edit, a listing, several reads, a tree built from one bounded listing),
// its text shaped as that server's, and its refusals reworded so that
// their next step names a reference tool (reference_words.go). Tool names,
// descriptions, argument types, schemas and annotations of both profiles
// come from package tools.
//
// What this package owns is the wire, file by file:
//
//   - server.go: the Server, one stet session per client connection (or
//     one shared session, Options.SharedSession), the _meta keys
//     stet/session, stet/request and stet/inputs on a call (meta.go), and
//     the call itself, run in its own goroutine so a cancelled call is
//     answered at once;
//   - transport.go and fastpath.go: a stdio transport that answers a
//     malformed line with a JSON-RPC parse error and an oversized one with
//     an error reply and keeps serving; once a session is initialized it
//     answers tools/call itself through the same handler, reading the
//     envelope without decoding the arguments, and leaves every other
//     message (and any line it is not sure to read as go-sdk would) to
//     go-sdk; encode.go and result.go encode a result once and keep it
//     under what MCP clients accept;
//   - http.go and stateless.go: streamable HTTP with bearer-token checks
//     and an Origin check (loopback origins and those allowed), HTTP
//     sessions that are bounded and expire, and for stateless requests the session handles the
//     server mints and the caller passes back;
//   - roots.go: asking a client for its roots (roots/list), which the
//     facade uses to narrow the workspace for that connection
//     (stet.Session.Within), or, for a server made with no workspace (stet
//     mcp with no --root), opens as that connection's workspace; with none,
//     every call is refused, saying how to name a root;
//   - stall.go: the review-stall counter of SPEC section 8, per session
//     (package stall decides, this package applies);
//   - instructions.go and media.go: the server's instructions naming every
//     root, and image, audio and resource content blocks.
//
// This package must not decide what a tool may do to a file, read or write
// a file itself, or word refusals of its own beyond the wire's (bad _meta,
// stalled reads, oversized results, no root to serve, an unknown session
// handle). Whether a path lies inside the roots a client announced is the
// facade's to decide, on the resolved path.
package mcpserver
