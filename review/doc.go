// Package review serves stet review: a local web page over a workspace's
// journal where a person sees what agents changed (sessions, turns, files
// with line counts, combined diffs, whether each change still stands, what
// the guards refused, one file's history, the journal's verification) and
// takes back exactly what they do not want.
//
// It is a face over the stet facade, like the CLI and the MCP server: every
// answer is one facade call (Workspace.Summary, Sessions, Diff, Stands,
// SessionStands, Refusals, History, SearchPaths, Roots, Verify,
// UndoChanges), and it holds no rule or journal logic of its own. The page can do nothing the CLI cannot.
//
// It must not be reachable from anything but this machine: it listens on a
// loopback address only, every request carries a random token (compared in
// constant time), the Host header must name a loopback host (no DNS
// rebinding), and a request from a browser page of another origin is
// refused. The page, its styles and its script are embedded; it loads
// nothing from the network.
package review
