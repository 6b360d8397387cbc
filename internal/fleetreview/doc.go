// Package fleetreview is the review page's source over the fleet database
// (stet review --journal URL): every host's sessions, turns, changes and
// refusals, with diffs rebuilt from the shipped blobs and the regions each
// receipt replaced, and whether each change still stands as its host last
// saw it. It implements review.Source and review.UndoCommander.
//
// What it must not do: write to the database, or undo anything: undo
// needs the files, which are on the host; the page gets the command to
// run there. It reads only what the connection's role may see.
//
// Limits: a version is shown only when the database can rebuild it: from
// a blob (a saved preimage, or the bytes the host shipped while the change
// stood) or backwards from a later version through an edit's replaced
// regions. A change whose result the host never saw standing (changed
// again before a ship) may be known by hash only; its diff says so and its
// counts are marked not exact, as in the local review.
package fleetreview
