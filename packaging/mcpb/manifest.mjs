// Prints the manifest.json of stet's Claude Desktop extension for one
// platform (run by scripts/release.sh):
//
//   node packaging/mcpb/manifest.mjs VERSION PLATFORM ENTRY TOOLS_JSON
//
// VERSION is the release's semver, PLATFORM one of darwin, linux, win32,
// ENTRY the binary's path in the bundle (server/stet or server/stet.exe), and
// TOOLS_JSON the output of `stet tools --format mcp`, from which the listed
// tools come. The manifest format is MCPB 0.3 (the @anthropic-ai/mcpb CLI's
// MANIFEST.md).
//
// One bundle holds one binary: a manifest can pick a command per OS
// (platform_overrides) but not per CPU, so each OS/CPU pair gets its own
// bundle, which says which OS it runs on in compatibility.platforms.
import fs from "node:fs";

const [version, platform, entry, toolsPath] = process.argv.slice(2);
if (!version || !["darwin", "linux", "win32"].includes(platform) || !entry || !toolsPath) {
  console.error("usage: node packaging/mcpb/manifest.mjs VERSION darwin|linux|win32 ENTRY TOOLS_JSON");
  process.exit(2);
}

// The first sentence of a tool's description: the extension's page lists
// tools, the full text reaches the model from the server itself.
const firstSentence = (s) => {
  const m = /^(.*?[.!?])(\s|$)/s.exec(s);
  return (m ? m[1] : s).replace(/\s+/g, " ").trim();
};
const tools = JSON.parse(fs.readFileSync(toolsPath, "utf8")).map((t) => ({
  name: t.name,
  description: firstSentence(t.description || t.title || t.name),
}));

const manifest = {
  manifest_version: "0.3",
  name: "stet",
  display_name: "stet",
  version,
  description: "Guarded file tools for agents: every edit checked against what was read, journaled and undoable.",
  long_description:
    "stet serves read, edit, write, patch, list, find and grep over MCP on the directories you choose. " +
    "An edit to a file that changed since it was read is refused with the current text, every change lands " +
    "atomically and is recorded in a journal, and any change can be undone. Nothing outside the chosen " +
    "directories is read or written.",
  author: { name: "The stet authors", url: "https://github.com/stet-dev/stet" },
  repository: { type: "git", url: "https://github.com/stet-dev/stet" },
  homepage: "https://github.com/stet-dev/stet",
  documentation: "https://github.com/stet-dev/stet/blob/main/docs/install.md",
  support: "https://github.com/stet-dev/stet/issues",
  license: "Apache-2.0",
  keywords: ["files", "edit", "undo", "filesystem", "agent"],
  server: {
    type: "binary",
    entry_point: entry,
    mcp_config: {
      command: "${__dirname}/" + entry,
      // A multiple-choice user_config value expands into one argument per
      // directory; stet mcp takes directories after its flags as roots.
      args: ["mcp", "${user_config.allowed_directories}"],
      env: {},
    },
  },
  tools,
  tools_generated: false,
  compatibility: {
    platforms: [platform],
  },
  user_config: {
    allowed_directories: {
      type: "directory",
      title: "Allowed directories",
      description: "The directories stet may read and change (each one a root; nothing outside them is served).",
      multiple: true,
      required: true,
    },
  },
};

process.stdout.write(JSON.stringify(manifest, null, 2) + "\n");
