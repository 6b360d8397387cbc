// Package cfgedit merges one named entry into a client's configuration file
// as text, keeping everything else byte for byte: the other entries, their
// order and formatting, and the file's comments where the format has them.
// It is what `stet setup CLIENT --write` uses to add stet to the MCP
// configuration of Claude Desktop, Claude Code, Cursor, VS Code, Windsurf,
// Zed (JSON with comments), Codex (TOML) and Goose (YAML).
//
// Each merge parses the whole file first and refuses what it cannot read
// safely with a *SyntaxError naming the line and column; a refused file is
// never half-edited. The entry itself is replaced whole: comments inside an
// old stet entry do not survive.
//
// Limits: the JSON reader accepts JSON with // and /* */ comments and
// trailing commas (the dialect of VS Code and Zed). The TOML reader checks
// the grammar of TOML 1.0 lines (keys, strings, arrays, inline tables) but
// not the meaning of scalars such as dates. The YAML reader understands
// block mappings only: it refuses tabs in indentation, several documents,
// and flow collections or quoted scalars that span lines, which a
// tool-written config.yaml never has.
//
// This package does no IO: callers read and write the bytes.
package cfgedit
