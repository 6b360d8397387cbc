// Package review serves stet review: a local web page over a workspace's
// journal where a person sees what agents changed (sessions, turns, files
// with line counts, combined diffs, whether each change still stands, what
// the guards refused, one file's history, the journal's verification) and
// takes back exactly what they do not want.
//
// It is a face over a Source, like the CLI and the MCP server over the
// facade: every answer is one Source call, and it holds no rule or journal
// logic of its own. The workspace's source (NewHandler, Listen) is one
// facade call a method (Workspace.Summary, Sessions, Diff, Stands,
// SessionStands, Refusals, History, SearchPaths, Roots, Verify,
// UndoChanges); the fleet's (stet review --journal, package
// internal/fleetreview) reads the database every host ships to, and,
// having no files, names the undo command to run on the host
// (UndoCommander) instead of undoing. The page can do nothing the CLI cannot.
//
// It must not be reachable from anything but this machine: it listens on a
// loopback address only, every request carries a random token (compared in
// constant time), the Host header must name a loopback host (no DNS
// rebinding), and a request from a browser page of another origin is
// refused. The page, its styles and its script are embedded; it loads
// nothing from the network.
package review
