package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGrepCLI: grep's flags, exit codes (0 a match, 1 none, 2 bad usage
// or an error, 3 refused), modes, and the ignore flags of list, find and
// grep.
func TestGrepCLI(t *testing.T) {
	w := newWS(t, map[string]string{
		".gitignore":          "node_modules/\n",
		"a.go":                "package a\n// Needle here\nfunc needle() {}\n",
		"b.txt":               "one\nneedles\ntwo\nthree\nneedle\n",
		"node_modules/x.json": `{"needle": 1}` + "\n",
	})
	w.env = append(w.env, "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1")
	for _, c := range []struct {
		args    []string
		code    int
		out     string // standard output: grep's rows alone
		trailer string // the last line of standard error
	}{
		{[]string{"grep", "needle"}, 0, "a.go:3:func needle() {}\nb.txt:2:needles\nb.txt:5:needle\n", "(3 matches)"},
		{[]string{"grep", "-i", "-w", "needle"}, 0, "a.go:2:// Needle here\na.go:3:func needle() {}\nb.txt:5:needle\n", "(3 matches)"},
		{[]string{"grep", "-F", "needle()"}, 0, "a.go:3:func needle() {}\n", "(1 match)"},
		{[]string{"grep", "-l", "needle"}, 0, "a.go\nb.txt\n", "(2 files)"},
		{[]string{"grep", "-c", "needle"}, 0, "a.go:1\nb.txt:2\n", "(2 files)"},
		{[]string{"grep", "-A", "1", "-B", "1", "needles", "b.txt"}, 0, "b.txt-1-one\nb.txt:2:needles\nb.txt-3-two\n", "(1 match)"},
		{[]string{"grep", "-C", "1", "three"}, 0, "b.txt-3-two\nb.txt:4:three\nb.txt-5-needle\n", "(1 match)"},
		{[]string{"grep", "--type", "go", "needle"}, 0, "a.go:3:func needle() {}\n", "(1 match)"},
		{[]string{"grep", "--no-ignore", "-l", "needle"}, 0, "a.go\nb.txt\nnode_modules/x.json\n", "(3 files)"},
		{[]string{"grep", "--exclude", "*.go", "-l", "needle"}, 0, "b.txt\n", "(1 file)"},
		{[]string{"grep", "--offset", "1", "--limit", "1", "needle"}, 0, "b.txt:2:needles\n", "(first 1 match; more exist: page with offset, narrow path/glob/type, or raise limit)"},
		{[]string{"grep", "needle", "node_modules/x.json"}, 0, "node_modules/x.json:1:{\"needle\": 1}\n", "(1 match)"},
		{[]string{"grep", "nothing-here"}, 1, "", "(no match)"},
		{[]string{"grep", "-l", "-c", "x"}, 2, "", ""},
		{[]string{"grep", "("}, 3, "", ""},
		{[]string{"grep", "x", "missing.txt"}, 3, "", ""},
		{[]string{"find", "**"}, 0, ".gitignore\na.go\nb.txt\n(3 paths)\n", ""},
		{[]string{"find", "--no-ignore", "--exclude", ".*", "**"}, 0, "a.go\nb.txt\nnode_modules/x.json\n(3 paths)\n", ""},
		{[]string{"list"}, 0, ".gitignore  (14 bytes)\na.go  (42 bytes)\nb.txt  (29 bytes)\n(3 entries)\n", ""},
	} {
		r := w.run("", c.args...)
		rows := c.out != "" || c.args[0] == "grep" && c.code < 2 // grep's standard output is its rows alone
		if r.code != c.code || (rows && r.stdout != c.out) || (c.trailer != "" && lastLine(r.stderr) != c.trailer) {
			t.Errorf("stet %s: exit %d, want %d\nstdout: %q\nwant:   %q\nstderr: %q\nwant the trailer %q", strings.Join(c.args, " "), r.code, c.code, r.stdout, c.out, r.stderr, c.trailer)
		}
	}
	r := w.run("", "--json", "grep", "nothing-here")
	if r.code != 1 || !strings.Contains(r.stdout, `"matches": []`) {
		t.Errorf("--json grep without a match: exit %d, %s", r.code, r.stdout)
	}
}

// TestGrepStreams: the first rows of a wide grep reach a reader before the
// search is done; a reader that stops after one line ends the process
// before the search is done. The output (about 700 KB) is far larger than
// a pipe holds, so a grep that streams is stopped, writing, by the closed
// pipe long before its last file; one that writes its answer only at the
// end has searched everything, and recorded every file it showed as seen
// in the session, before its first write. So the last file shown must not
// count as seen afterwards: an edit of it is refused as not read.
func TestGrepStreams(t *testing.T) {
	w := newWS(t, nil)
	pad := strings.Repeat(" padding", 25)
	for i := range 3000 {
		w.put(fmt.Sprintf("d%02d/f%04d.txt", i%50, i), "a needle"+pad+"\nplain\n")
	}
	cmd := exec.Command(bin, "grep", "needle", "--limit", "100000")
	cmd.Dir = w.root
	cmd.Env = append(os.Environ(), "STET_STATE="+w.state, "STET_SESSION=", "STET_EFFECTS=", "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "d00/f0000.txt:1:a needle"+pad+"\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	out.Close() // as head -1 does
	if err := cmd.Wait(); err == nil {
		t.Error("grep finished though its reader stopped after one line")
	}
	last := "d49/f2999.txt"
	r := w.run("", "edit", "--dry-run", "--old-string", "a needle", "--new-string", "A needle", last)
	if r.code != 3 || !strings.Contains(r.stdout+r.stderr, "been read") {
		t.Errorf("edit of %s after the stopped grep: exit %d, %s%s; want it refused as not read (the grep searched on after its reader stopped)", last, r.code, r.stdout, r.stderr)
	}
}

// TestGrepSpeaksGrep: grep's flags as shell users type them: clusters
// (-il, -C1), -e PATTERN (repeatable), -h and -H, -q, the accepted -n, -r
// and -E, several PATHs, "-" for standard input, "--" before a pattern that
// starts with a dash; grep's exit codes (0 a match, 1 none, 2 bad usage or
// an error) and 3 for a refusal.
func TestGrepSpeaksGrep(t *testing.T) {
	w := newWS(t, map[string]string{
		"a.go":  "package a\n// Needle here\nfunc needle() {}\n",
		"b.txt": "one\nneedles\ntwo\nthree\nneedle\n-x flag\n",
	})
	w.env = append(w.env, "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1")
	for _, c := range []struct {
		stdin   string
		args    []string
		code    int
		out     string // standard output: grep's rows alone
		trailer string // the last line of standard error
	}{
		{"", []string{"grep", "-il", "needle", "."}, 0, "a.go\nb.txt\n", "(2 files)"},
		{"", []string{"grep", "-iw", "needle", "a.go"}, 0, "a.go:2:// Needle here\na.go:3:func needle() {}\n", "(2 matches)"},
		{"", []string{"grep", "-C1", "three", "b.txt"}, 0, "b.txt-3-two\nb.txt:4:three\nb.txt-5-needle\n", "(1 match)"},
		{"", []string{"grep", "-A1", "-B", "1", "three", "b.txt"}, 0, "b.txt-3-two\nb.txt:4:three\nb.txt-5-needle\n", "(1 match)"},
		{"", []string{"grep", "-rnE", "need(le|les)$", "b.txt"}, 0, "b.txt:2:needles\nb.txt:5:needle\n", "(2 matches)"},
		{"", []string{"grep", "-c", "needle", "b.txt"}, 0, "b.txt:2\n", "(1 file)"},
		{"", []string{"grep", "-ch", "needle", "b.txt"}, 0, "2\n", "(1 file)"},
		{"", []string{"grep", "-h", "three", "b.txt"}, 0, "4:three\n", "(1 match)"},
		{"", []string{"grep", "-H", "three", "b.txt"}, 0, "b.txt:4:three\n", "(1 match)"},
		{"", []string{"grep", "-e", "one", "-e", "two", "b.txt"}, 0, "b.txt:1:one\nb.txt:3:two\n", "(2 matches)"},
		{"", []string{"grep", "-F", "-e", "()", "-e", "one", "a.go", "b.txt"}, 0, "a.go:3:func needle() {}\nb.txt:1:one\n", "(2 matches)"},
		{"", []string{"grep", "three", "a.go", "b.txt"}, 0, "b.txt:4:three\n", "(1 match)"},
		{"", []string{"grep", "--", "-x", "b.txt"}, 0, "b.txt:6:-x flag\n", "(1 match)"},
		{"", []string{"grep", "-e", "-x", "b.txt"}, 0, "b.txt:6:-x flag\n", "(1 match)"},
		{"", []string{"grep", "-q", "needle"}, 0, "", ""},
		{"", []string{"grep", "-q", "nothing-here"}, 1, "", ""},
		{"", []string{"grep", "-il", "nothing-here", "."}, 1, "", "(no match)"},
		{"first\nsecond needle\n", []string{"grep", "-n", "needle", "-"}, 0, "(standard input):2:second needle\n", "(1 match)"},
		{"first\nsecond needle\n", []string{"grep", "-c", "needle", "-", "b.txt"}, 0, "(standard input):1\nb.txt:2\n", "(2 files)"},
		{"first\n", []string{"grep", "needle", "-"}, 1, "", "(no match)"},
		// A file named alone is listed by -l only with a match, and
		// counted 0 by -c without one (exit 1: no line matched).
		{"", []string{"grep", "-l", "nothing-here", "b.txt"}, 1, "", "(no match)"},
		{"", []string{"grep", "-c", "nothing-here", "b.txt"}, 1, "b.txt:0\n", "(1 file)"},
		{"", []string{"grep", "-c", "nothing-here", "a.go", "b.txt"}, 1, "a.go:0\nb.txt:0\n", "(2 files)"},
		{"first\n", []string{"grep", "-c", "needle", "-"}, 1, "(standard input):0\n", "(1 file)"},
		// With context, "--" separates groups that do not meet, as grep
		// prints it: between files, and across a gap of lines.
		{"", []string{"grep", "-A1", "-e", "one", "-e", "needle$", "b.txt"}, 0, "b.txt:1:one\nb.txt-2-needles\n--\nb.txt:5:needle\nb.txt-6--x flag\n", "(2 matches)"},
		{"", []string{"grep", "-A1", "needle", "a.go", "b.txt"}, 0, "a.go:3:func needle() {}\n--\nb.txt:2:needles\nb.txt-3-two\n--\nb.txt:5:needle\nb.txt-6--x flag\n", "(3 matches)"},
		{"", []string{"grep", "-hC1", "needle", "a.go", "b.txt"}, 0, "2-// Needle here\n3:func needle() {}\n--\n1-one\n2:needles\n3-two\n4-three\n5:needle\n6--x flag\n", "(3 matches)"},
		{"", []string{"grep", "-v", "needle"}, 2, "", ""},
		{"", []string{"grep", "-A"}, 2, "", ""},
		{"", []string{"grep", "-Cx", "needle"}, 2, "", ""},
		{"", []string{"grep", "-e", "a", "--pattern", "b"}, 2, "", ""},
		{"", []string{"grep", "needle", "missing.txt"}, 3, "", ""},
		{"", []string{"grep", "three", "missing.txt", "b.txt"}, 3, "b.txt:4:three\n", "(1 match)"},
	} {
		r := w.run(c.stdin, c.args...)
		if r.code != c.code || (c.out != "" && r.stdout != c.out) || (c.out == "" && c.code != 2 && c.code != 3 && r.stdout != "") || (c.trailer != "" && lastLine(r.stderr) != c.trailer) {
			t.Errorf("stet %s: exit %d, want %d\nstdout: %q\nwant:   %q\nstderr: %q\nwant the trailer %q", strings.Join(c.args, " "), r.code, c.code, r.stdout, c.out, r.stderr, c.trailer)
		}
	}
	// Standard input is no workspace file: grepping it observes nothing,
	// and needs no workspace at all.
	journal := func() string {
		b, _ := os.ReadFile(filepath.Join(w.state, "journal.jsonl"))
		return string(b)
	}
	before := journal()
	if r := w.run("needle\n", "grep", "needle", "-"); r.code != 0 {
		t.Fatalf("grep -: exit %d, %s", r.code, r.stderr)
	}
	if after := journal(); after != before {
		t.Errorf("grep - wrote to the journal:\n%s", strings.TrimPrefix(after, before))
	}
	if r := w.run("", "grep", "package", "a.go"); r.code != 0 || journal() == before {
		t.Errorf("grep a.go: exit %d; the journal records nothing (is it where this test looks?)", r.code)
	}
	// The messages of bad usage name the flag as typed.
	for args, want := range map[string]string{
		"grep -v x":           "stet grep: unknown flag -v; the one-letter flags are -A -B -C -E -F -H -U -c -e -h -i -l -n -q -r -w\n",
		"grep -A":             "stet grep: flag -A needs a value\n",
		"grep -Cx x":          "stet grep: invalid value \"x\" for -C: want a whole number\n",
		"grep -count x":       "stet grep: unknown flag -count; long flags take two dashes: --count\n",
		"read -json a.go":     "stet read: unknown flag -json; long flags take two dashes: --json\n",
		"grep --ignore-cas x": "stet grep: unknown flag --ignore-cas; did you mean --ignore-case?\n",
	} {
		r := w.run("", strings.Fields(args)...)
		if first, _, _ := strings.Cut(r.stderr, "\n"); r.code != 2 || first+"\n" != want {
			t.Errorf("stet %s: exit %d, stderr %q, want first line %q", args, r.code, r.stderr, want)
		}
	}
}

// TestDashIsStandardInput: "-" takes a text from standard input wherever a
// flag takes a file's whole text: write --content, patch --patch, edit --edits.
func TestDashIsStandardInput(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "one\n"})
	if r := w.run("", "list"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if r := w.run("from stdin\n", "write", "--content", "-", "new.txt"); r.code != 0 || w.get("new.txt") != "from stdin\n" {
		t.Errorf("write --content -: exit %d, %s; new.txt = %q", r.code, r.stderr, w.get("new.txt"))
	}
	w.run("", "read", "a.txt")
	if r := w.run(`[{"old_string":"one","new_string":"two"}]`, "edit", "--edits", "-", "a.txt"); r.code != 0 || w.get("a.txt") != "two\n" {
		t.Errorf("edit --edits -: exit %d, %s; a.txt = %q", r.code, r.stderr, w.get("a.txt"))
	}
	if r := w.run("*** Begin Patch\n*** Add File: p.txt\n+p\n*** End Patch\n", "patch", "--patch", "-"); r.code != 0 || w.get("p.txt") != "p\n" {
		t.Errorf("patch --patch -: exit %d, %s; p.txt = %q", r.code, r.stderr, w.get("p.txt"))
	}
}

// lastLine is the last line of s, without its "\n".
func lastLine(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}
