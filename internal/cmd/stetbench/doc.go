// Command stetbench is stet's own MCP benchmark: per-call latency over
// stdio, start-up to first answer and peak memory of `stet mcp`, measured
// side by side in one run with the reference MCP filesystem server (the
// "peer", npm @modelcontextprotocol/server-filesystem, pinned in
// bench/peer) and with the same operation done directly in Go in this
// process (the "limit": os.ReadFile; read, unique replace and a durable
// atomic write). It also times the CLI (`stet read`, `stet edit`) from
// process start to exit.
//
// Usage (bench/run.sh builds everything and runs it):
//
//	stetbench -stet bin/stet -peer bench/peer/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js \
//	    -out docs/benchmarks.md
//
// How it measures. Every server is driven by one raw JSON-RPC client over
// its stdin and stdout: each request is encoded before the clock starts, and
// the clock stops when the response's line has been read in full, so the
// number is pipe write + server + pipe read. Targets take turns call by call
// (round-robin, the order rotated every round), so machine noise hits all of
// them alike; each scenario reports the median and p90 of -n calls (-n-large
// for the 10 MiB ones) after -warmup untimed calls. Every call's effect is
// checked untimed: a read's text decodes to the file, and after a mutation
// the file on disk holds exactly the expected bytes. Calls stet needs before
// a mutation (a read of the edited line's neighbourhood, a list of the
// directory before a create, a full read before a replace) are made untimed,
// as an agent would make them anyway. Fixture files are 100-byte lines of
// Go-like text with a tab and quotes, so JSON escaping costs what it costs
// on real code.
//
// Peak memory is VmHWM from /proc of a fresh server after a warm-up call and
// a few calls of one scenario; start-up is exec to the first tools/list
// answer over several fresh starts.
//
// With -cpuprofile, stetbench instead serves stet's MCP server inside this
// process over pipes and profiles -n calls of one scenario (-profile), to
// show where stet's time goes. With -where DIR it does the same for every
// scenario of -scenarios, each on a fresh server, and prints one table: the
// wall time of a call, the server's CPU per call split by what it was spent
// on (transport decode, encode, write; the read; the frame; the rules; the
// journal; hashing; the diff; the commit), from CPU profiles whose samples
// carry the server's pprof label (the untimed calls before a change are
// profiled alone and subtracted), and the commit's steps (stet.Hooks.Step).
// Each scenario's CPU and allocation profiles stay in DIR.
//
// `stetbench load` is the load mode: one fresh `stet mcp --http` per client
// count (-clients 1,4,16), driven by that many concurrent MCP clients over
// streamable HTTP, each its own session, for -calls calls of a mix of
// reads, greps, edits and creates of each client's own files and edits of
// one shared file; it reports throughput, p50/p99 latency, errors by kind,
// lost updates on the shared file (its final bytes checked against the
// receipts) and the server's peak RSS, medians over -runs runs. See
// docs/benchmarks.md, "Under load: many HTTP clients".
//
// It must not be installed with stet (it lives under internal/ for that),
// and it writes only inside its own temporary work directory and the
// report file it is given.
package main
