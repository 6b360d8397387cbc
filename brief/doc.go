// Package brief writes and reads the briefs an orchestrator gives its
// workers: the declared INPUTS list and the ORIGINAL REQUEST block that
// the input guard (policy rule 8) reads a worker's request from.
//
// A brief rendered by Render looks like this:
//
//	INPUTS (the operator's own files — read and edit in place, never replace; write on one is refused):
//	- data/sales.csv
//	- notes.md
//
//	ORIGINAL REQUEST:
//	Update the totals in sales.csv and summarise them in notes.md.
//	END ORIGINAL REQUEST
//
//	<the task>
//
// QuotedRequest also reads blocks written by hand or by other tools:
//
//   - the marker is a line holding only "ORIGINAL REQUEST" in any letter
//     case, optionally as a Markdown heading ("## Original request"), in
//     bold, in brackets, with a trailing colon, or with the request's first
//     line after the colon ("ORIGINAL REQUEST: fix the totals");
//   - if the first non-blank line after the marker opens a code fence
//     (``` or ~~~), the block is the fence's content;
//   - otherwise the block ends before a line "END ORIGINAL REQUEST" (or
//     "END OF ORIGINAL REQUEST", decorated the same ways); without one, it
//     ends before the next header line — an ALL-CAPS label ending in ":"
//     such as "TASK:" or "INPUTS (…):", or, after a heading marker, the next
//     Markdown heading of the same or a higher level — or at the end;
//   - "<original_request>" … "</original_request>" tags are read too;
//   - when every non-blank line of an unfenced block starts with ">", the quote marks
//     are removed.
//
// The first block in the text counts. Its content is returned with
// surrounding white space trimmed.
//
// Parse reads a rendered brief back into its inputs, request and task.
//
// The package is pure: no IO, no state. It decides nothing: what the input
// guard does with the request and the inputs is package policy's, and the
// facade pins them on a session (Session.Turn).
package brief
