// Package reviewfixture builds a small workspace and journal for the tests
// of stet review: three sessions of agent work with creates, edits, a
// delete, a move, a refusal of each guard kind, and a human edit after an
// agent change. It is for tests only and makes no decision of its own.
package reviewfixture
