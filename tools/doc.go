// Package tools holds what stet tells models and clients about its tools and
// how it reads what they send back:
//
//   - the catalog (spec.go): each tool's name, title, description written
//     for models (describe.go, with the server instructions and the
//     persona line), MCP annotations, the JSON Schemas of its arguments and
//     result, and the refusal kinds every surface reports;
//   - the argument and result types (types.go), which the facade uses as
//     its own (stet's api.go), so every surface speaks the same shapes;
//   - tool definitions in the MCP, OpenAI (Chat Completions and
//     Responses) and Anthropic formats, strict for OpenAI's structured
//     outputs on request (definitions.go);
//   - rule 1 of SPEC section 4, arguments: Decode (decode.go, reading JSON
//     with internal/jsonscan) turns a call's JSON arguments into a typed
//     argument struct or an *ArgError a model can act on (wrong types,
//     unknown keys with the nearest known key, missing arguments, values
//     no call could accept), and Validate (check.go) holds a Go caller's
//     argument struct to the same bounds;
//   - the names grep's type argument accepts (filetypes.go);
//   - the profiles (profile.go): Stet, the catalog above, and Reference
//     (reference.go), the tools of the reference filesystem server under
//     its names and argument types (ReadTextFileArgs, EditFileArgs, ...),
//     each built on one stet tool (Spec.Base), whose schemas are built
//     from the same rows and whose arguments Profile.Decode reads with the
//     same decoder.
//
// The facade, the MCP server (both profiles) and the CLI all decode
// through this package, so a tool has one set of arguments and one set of
// words on every surface. A new tool is its argument type and its row in
// its profile's catalog (spec.go or reference.go), with its description;
// never a decoder of its own.
//
// This package must not touch the disk or any other IO, and must not make
// policy decisions: whether a path is inside the workspace, whether a file
// was read, whether a change is allowed belong to the fsys backends, the
// facade and package policy. Decode and Validate judge only what the
// arguments say on their own.
package tools
