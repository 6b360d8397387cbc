// Package fleetdb is stet's journal in PostgreSQL: the schema and its
// versioned migrations, the writes a shipper makes (a journal's identity,
// its lines, the blobs they name, what its host saw of each change), the
// check of every chain the database holds (Verify), and the reads the
// fleet review makes.
//
// The database keeps each journal's hash chain as the host wrote it: a line
// is stored with its exact bytes and hash, and joins its chain only after
// the line before it (a trigger refuses a gap or a fork); a row is never
// changed or removed (no role is granted UPDATE or DELETE, and a trigger
// refuses them for the tables' owner too). Inserts are idempotent: a line
// is identified by its journal (shipping role, host, state directory), its
// generation and its seq, and a second copy of it is dropped, so retries,
// crashes mid-sync and two shippers at once leave each line once. A line
// that differs from the stored one at the same place is a fork
// (*ForkError), never stored.
//
// Roles: the migration makes the group roles stet_ship (may add to, and
// read, the journals it shipped: row-level security) and stet_read (may
// read everything); an administrator makes one login role per host or team
// in stet_ship.
//
// What it must not do: read or write a user's workspace or the local
// journal (package ship does the reading), decide what may be shipped
// (deny-read is ship's), or hold rules of the facade.
//
// Limits: verification proves that the rows are the lines their hosts
// shipped, chained; it is not a signature. A role that can disable the
// triggers (the tables' owner, a superuser) can rewrite a chain whole; the
// host's own journal is then the witness (stet sync finds the fork).
package fleetdb
