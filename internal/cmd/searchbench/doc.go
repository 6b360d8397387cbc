// Command searchbench measures stet's list/find/grep against grep -rn, find
// and ripgrep (where installed) on the same trees, side by side in one run:
// wall time (median of the runs, warm cache), the time to the first line of
// output, peak memory (the child's maximum resident set), and the size of
// stet's state directory after each stet scenario. It prints a Markdown
// section for docs/benchmarks.md. bench/search.sh runs it.
package main
