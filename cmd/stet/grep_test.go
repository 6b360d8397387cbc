package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
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
		args []string
		code int
		out  string
	}{
		{[]string{"grep", "needle"}, 0, "a.go:3:func needle() {}\nb.txt:2:needles\nb.txt:5:needle\n(3 matches)\n"},
		{[]string{"grep", "-i", "-w", "needle"}, 0, "a.go:2:// Needle here\na.go:3:func needle() {}\nb.txt:5:needle\n(3 matches)\n"},
		{[]string{"grep", "-F", "needle()"}, 0, "a.go:3:func needle() {}\n(1 match)\n"},
		{[]string{"grep", "-l", "needle"}, 0, "a.go\nb.txt\n(2 files)\n"},
		{[]string{"grep", "-c", "needle"}, 0, "a.go:1\nb.txt:2\n(2 files)\n"},
		{[]string{"grep", "-A", "1", "-B", "1", "needles", "b.txt"}, 0, "b.txt-1-one\nb.txt:2:needles\nb.txt-3-two\n(1 match)\n"},
		{[]string{"grep", "-C", "1", "three"}, 0, "b.txt-3-two\nb.txt:4:three\nb.txt-5-needle\n(1 match)\n"},
		{[]string{"grep", "--type", "go", "needle"}, 0, "a.go:3:func needle() {}\n(1 match)\n"},
		{[]string{"grep", "--no-ignore", "-l", "needle"}, 0, "a.go\nb.txt\nnode_modules/x.json\n(3 files)\n"},
		{[]string{"grep", "--exclude", "*.go", "-l", "needle"}, 0, "b.txt\n(1 file)\n"},
		{[]string{"grep", "--offset", "1", "--limit", "1", "needle"}, 0, "b.txt:2:needles\n(first 1 match; more exist: page with offset, narrow path/glob/type, or raise limit)\n"},
		{[]string{"grep", "needle", "node_modules/x.json"}, 0, "node_modules/x.json:1:{\"needle\": 1}\n(1 match)\n"},
		{[]string{"grep", "nothing-here"}, 1, "(no match)\n"},
		{[]string{"grep", "-l", "-c", "x"}, 2, ""},
		{[]string{"grep", "("}, 3, ""},
		{[]string{"grep", "x", "missing.txt"}, 3, ""},
		{[]string{"find", "**"}, 0, ".gitignore\na.go\nb.txt\n(3 paths)\n"},
		{[]string{"find", "--no-ignore", "--exclude", ".*", "**"}, 0, "a.go\nb.txt\nnode_modules/x.json\n(3 paths)\n"},
		{[]string{"list"}, 0, ".gitignore  (14 bytes)\na.go  (42 bytes)\nb.txt  (29 bytes)\n(3 entries)\n"},
	} {
		r := w.run("", c.args...)
		if r.code != c.code || (c.out != "" && r.stdout != c.out) {
			t.Errorf("stet %s: exit %d, want %d\nstdout: %q\nwant:   %q\nstderr: %s", strings.Join(c.args, " "), r.code, c.code, r.stdout, c.out, r.stderr)
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
