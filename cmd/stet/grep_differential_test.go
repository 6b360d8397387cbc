package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// grepCorpus is the files the differential tests search: words of several
// scripts with letters, digits and marks around them, punctuation-bounded
// text, identifiers, CRLF lines, and a file with no match for most
// queries (-c shows it with 0).
var grepCorpus = map[string]string{
	"code.go": "package foo\n\nfunc foo_bar() {}\nfunc fooBar(x int) int { return foo(x) }\n" +
		"var Foo = foo.Bar // foo\n\tfoo\t\nif x-v > 0 { y := -v }\n",
	"crlf.txt":  "caf\r\nfoo bar\r\n(x)\r\nnothing\r\n",
	"empty.txt": "nothing here\nat all\n",
	"punct.txt": "a(x)b\n(x)[y]\ncall(x) + f(x)\n((x))\nx-v\nrun -v now\nfoo.bar\n[y]\n{z}\n" +
		"a.b\n(a.b)\n$HOME/x\n@user\n#tag\n--flag\n",
	"words.txt": "café\ncaf\ncaf é\nun café noir\nnaïve\nna\nïna\n日本語\n日本\n「日本」\n" +
		"cafe\u0301\nétés\nun été\nCAFÉ\nb١٢\nb 12\nका\nक\nfoo_bar\nfoo-bar\nfoox foo\nxfoo foox\n" +
		"Straße\nSTRASSE\nΣίσυφος\nσίσυφος\nx_1 x1 x\nx\u203fy\nz\u200dw\n",
}

// grepQueries are the flag sets compared (the files are appended): -w with
// Unicode letters, punctuation-bounded fixed strings, -l, -c, -i -w,
// several -e, context and its group separators, -h.
var grepQueries = [][]string{
	{"-w", "caf"}, {"-w", "na"}, {"-w", "日本"}, {"-w", "foo"}, {"-w", "x"}, {"-w", "b"}, {"-w", "cafe"},
	{"-w", "z"}, {"-w", "foo_bar"}, {"-w", "été"}, {"-w", "क"}, {"-w", "x1"}, {"-w", "σίσυφος"},
	{"-wF", "(x)"}, {"-wF", "[y]"}, {"-wF", "a.b"}, {"-wF", "-e", "-v"}, {"-wF", "$HOME"}, {"-wF", "@user"},
	{"-wF", "-e", "--flag"}, {"-wF", "#tag"}, {"-wF", "foo.bar"}, {"-w", "-e", `\(x\)`}, {"-w", `f\(x\)`},
	{"-iw", "CAF"}, {"-iw", "café"}, {"-iw", "ÉTÉ"}, {"-iw", "FOO"}, {"-iw", "Σίσυφος"},
	{"-w", "-e", "caf", "-e", "na"}, {"-wF", "-e", "(x)", "-e", "foo"}, {"-e", "caf", "-e", "日本"},
	{"-F", "-e", "(x)", "-e", "a.b"},
	{"-l", "foo"}, {"-lw", "caf"}, {"-l", "zzz"}, {"-c", "foo"}, {"-cw", "caf"}, {"-c", "zzz"}, {"-ciw", "foo"},
	{"-hw", "foo"}, {"-hc", "x"},
	{"-C1", "-w", "foo"}, {"-A1", "nothing"}, {"-B2", "-w", "x"}, {"-C1", "(x)"}, {"-hA1", "-w", "caf"},
	{"foo"}, {"-i", "straße"}, {"-F", "a.b"}, {"caf.$"}, {"^foo"},
}

// grepTokens are what the generated queries look for: words of the
// corpus, their parts, and punctuation-bounded text (fixed strings).
var grepTokens = []string{
	"caf", "café", "cafe", "na", "naïve", "ïna", "日本", "日本語", "本", "été", "étés", "foo", "bar", "foo_bar",
	"fooBar", "Foo", "x", "x1", "x_1", "b", "y", "v", "run", "noir", "un", "क", "का", "Σίσυφος", "φος", "ίσ",
	"nothing", "here", "at all", "CAF", "ÉTÉ", "FOO", "(x)", "[y]", "a.b", "-v", "f(x)", "x-v", "$HOME", "{z}",
	"foo.bar", "--flag", "#tag", "@user", "(a.b)",
}

// gnuGrep returns GNU grep and a UTF-8 locale whose word characters are
// glibc's (é and the vowel sign of "का" are word characters, the
// combining acute accent U+0301 is none), or skips the test saying why
// there is none.
func gnuGrep(t *testing.T) (string, string) {
	t.Helper()
	path, err := exec.LookPath("grep")
	if err != nil {
		t.Skip("grep is not installed: GNU grep is the reference of this test")
	}
	if out, _ := exec.Command(path, "--version").Output(); !bytes.Contains(out, []byte("GNU grep")) {
		t.Skipf("%s is not GNU grep: the reference of this test", path)
	}
	probes := []struct {
		pattern, line string
		match         bool
	}{{"caf", "café", false}, {"क", "का", false}, {"cafe", "cafe\u0301", true}}
	for _, loc := range []string{"C.UTF-8", "C.utf8", "en_US.UTF-8", "en_US.utf8"} {
		ok := true
		for _, p := range probes {
			cmd := exec.Command(path, "-w", p.pattern)
			cmd.Env = append(os.Environ(), "LC_ALL="+loc)
			cmd.Stdin = strings.NewReader(p.line + "\n")
			err := cmd.Run()
			ee, failed := err.(*exec.ExitError)
			if p.match && err != nil || !p.match && !(failed && ee.ExitCode() == 1) {
				ok = false
				break
			}
		}
		if ok {
			return path, loc
		}
	}
	t.Skip("no UTF-8 locale with glibc's word characters (C.UTF-8, en_US.UTF-8): GNU grep's -w is judged there")
	return "", ""
}

// toolRun is one run of a tool: its standard output and exit code.
type toolRun struct {
	out  string
	code int
}

func runTool(t *testing.T, dir string, env []string, name string, args ...string) toolRun {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return toolRun{out.String(), code}
}

// generatedQueries are n queries drawn from grepTokens with seed: -w,
// -iw, -wF, -iwF, several -e, -l, -c, -h and context. Each pattern is
// given with -e (some start with a dash).
func generatedQueries(seed uint64, n int) [][]string {
	rng := rand.New(rand.NewPCG(seed, 27))
	tok := func(fixed bool) string {
		for {
			s := grepTokens[rng.IntN(len(grepTokens))]
			if fixed || !strings.ContainsAny(s, `()[]{}.$#+*?^|\`) {
				return s
			}
		}
	}
	modes := [][]string{{"-w"}, {"-iw"}, {"-wF"}, {"-iwF"}, {"-lw"}, {"-cw"}, {"-hw"}, {"-C1", "-w"}, {"-A1", "-iw"}, nil}
	var qs [][]string
	for range n {
		m := modes[rng.IntN(len(modes))]
		if m == nil {
			qs = append(qs, []string{"-w", "-e", tok(false), "-e", tok(false)})
			continue
		}
		fixed := strings.Contains(m[len(m)-1], "F")
		qs = append(qs, append(append([]string{}, m...), "-e", tok(fixed)))
	}
	return qs
}

// TestGrepAsGNUGrep: stet grep's standard output and exit code are GNU
// grep's (grep -EHn: extended expressions, the closest to RE2; in a UTF-8
// locale) for the fixed queries and for generated ones, on the corpus's
// files named in path order. The deliberate departures are
// TestGrepDepartures'.
func TestGrepAsGNUGrep(t *testing.T) {
	gnu, loc := gnuGrep(t)
	w := newWS(t, grepCorpus)
	files := make([]string, 0, len(grepCorpus))
	for name := range grepCorpus {
		files = append(files, name)
	}
	slices.Sort(files)
	queries := append(append([][]string{}, grepQueries...), generatedQueries(1, 150)...)
	env := []string{"LC_ALL=" + loc, "GREP_COLORS=", "GREP_COLOR="}
	for _, q := range queries {
		flags := []string{"-EHn", "--color=never"}
		if fixedQuery(q) {
			flags[0] = "-Hn" // GNU grep takes -E or -F, not both
		}
		want := runTool(t, w.root, env, gnu, append(append(flags, q...), files...)...)
		if want.code > 1 {
			t.Fatalf("grep %q: exit %d", q, want.code)
		}
		got := w.run("", append(append([]string{"grep"}, q...), files...)...)
		if got.stdout != want.out || got.code != want.code {
			t.Errorf("grep %s\nstet: exit %d\n%s\nGNU grep: exit %d\n%s", strings.Join(q, " "), got.code, got.stdout, want.code, want.out)
		}
	}
}

// fixedQuery reports whether the flags q hold -F.
func fixedQuery(q []string) bool {
	for i, a := range q {
		if (i == 0 || q[i-1] != "-e") && strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "F") {
			return true
		}
	}
	return false
}

// rgDiffers are the queries on which ripgrep disagrees with GNU grep, and
// stet takes grep's side: ripgrep's \w counts combining marks (U+0301 in
// the decomposed "cafe\u0301"), connector punctuation ("‿") and the
// joiners as word characters, where glibc's iswalnum does not (see
// grep_word.go and docs/cli.md).
var rgDiffers = map[string]string{
	"-w cafe":  "U+0301 after cafe: no word character for GNU grep, one for ripgrep",
	"-w x":     "x\u203fy: \u203f is connector punctuation, a word character for ripgrep only",
	"-w z":     "z\u200dw: the zero-width joiner is a word character for ripgrep only",
	"-B2 -w x": "x\u203fy, as -w x",
}

// TestGrepAsRipgrep: on the same corpus and fixed queries, stet grep's
// standard output and exit code are ripgrep's (rg -H -n --sort path
// --no-heading, -c with --include-zero, -h as -I), but for rgDiffers.
func TestGrepAsRipgrep(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("ripgrep is not installed")
	}
	w := newWS(t, grepCorpus)
	files := make([]string, 0, len(grepCorpus))
	for name := range grepCorpus {
		files = append(files, name)
	}
	slices.Sort(files)
	for _, q := range grepQueries {
		args := append([]string{"--no-config", "--color", "never", "--no-heading", "-H", "-n", "--sort", "path"}, rgArgs(q)...)
		want := runTool(t, w.root, nil, rg, append(args, files...)...)
		if want.code > 1 {
			t.Fatalf("rg %q: exit %d", args, want.code)
		}
		got := w.run("", append(append([]string{"grep"}, q...), files...)...)
		if why, ok := rgDiffers[strings.Join(q, " ")]; ok {
			if got.stdout == want.out {
				t.Errorf("grep %s: stet and ripgrep agree, though rgDiffers says %q (a newer ripgrep?)", strings.Join(q, " "), why)
			}
			continue
		}
		if got.stdout != want.out || got.code != want.code {
			t.Errorf("grep %s\nstet: exit %d\n%s\nripgrep: exit %d\n%s", strings.Join(q, " "), got.code, got.stdout, want.code, want.out)
		}
	}
}

// rgArgs is grep's flags q as ripgrep takes them: -h is rg's -I (its -h
// is help), and -c needs --include-zero to show a named file without a
// match. Clusters hold flag letters and numbers only.
func rgArgs(q []string) []string {
	var out []string
	for i, a := range q {
		if i > 0 && q[i-1] == "-e" || !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") {
			out = append(out, a)
			continue
		}
		if strings.Contains(a, "c") {
			out = append(out, "--include-zero")
		}
		out = append(out, strings.ReplaceAll(a, "h", "I"))
	}
	return out
}

// grepDepartures are where stet grep departs from GNU grep on purpose,
// each by name with the words of docs/cli.md that say so: the test checks
// that the docs still say them and that the outputs still differ (an
// entry that no longer differs is stale: drop it, and its docs line).
var grepDepartures = []struct {
	name  string
	doc   string            // words of docs/cli.md (spaces and line breaks alike)
	files map[string]string // the workspace
	gnu   []string          // GNU grep's arguments
	stet  []string          // stet grep's
}{
	{"binary file", "a binary file (a NUL byte in its first 8 KiB) has no match",
		map[string]string{"bin.dat": "foo\x00bar\n"}, []string{"-H", "foo", "bin.dat"}, []string{"foo", "bin.dat"}},
	{"not UTF-8", "nor has a file that is not UTF-8",
		map[string]string{"latin1.txt": "caf\xe9 foo\n"}, []string{"-H", "foo", "latin1.txt"}, []string{"foo", "latin1.txt"}},
	{"long line", "a line over 2,000 bytes is shown cut",
		map[string]string{"long.txt": "foo " + strings.Repeat("x", 3000) + "\n"}, []string{"-Hn", "foo", "long.txt"}, []string{"foo", "long.txt"}},
	{"default page", "at most 200 matching lines (24 KiB of rows) unless `--limit` says more",
		map[string]string{"many.txt": strings.Repeat("foo\n", 250)}, []string{"-Hn", "foo", "many.txt"}, []string{"foo", "many.txt"}},
	{"count in a directory", "files without a match are left out",
		map[string]string{"d/a.txt": "foo\n", "d/b.txt": "bar\n"}, []string{"-rc", "foo", "d"}, []string{"-c", "foo", "d"}},
	{"line numbers", "rows always carry line numbers",
		map[string]string{"a.txt": "foo\n"}, []string{"-H", "foo", "a.txt"}, []string{"foo", "a.txt"}},
	{"the path with one file", "with it (the default, even for one file)",
		map[string]string{"a.txt": "foo\n"}, []string{"-n", "foo", "a.txt"}, []string{"foo", "a.txt"}},
	{"empty pattern", "an empty PATTERN is bad usage",
		map[string]string{"a.txt": "foo\n"}, []string{"-Hn", "", "a.txt"}, []string{"", "a.txt"}},
	{"case folding", "`-i` folds case as Unicode's simple case folding does",
		map[string]string{"a.txt": "\u1e9e\n"}, []string{"-Hni", "\u00df", "a.txt"}, []string{"-i", "\u00df", "a.txt"}},
}

// TestGrepDepartures: each departure from GNU grep is said in
// docs/cli.md, and still departs.
func TestGrepDepartures(t *testing.T) {
	docs, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(string(docs)), " ")
	for _, d := range grepDepartures {
		if !strings.Contains(flat, d.doc) {
			t.Errorf("%s: docs/cli.md does not say %q", d.name, d.doc)
		}
	}
	gnu, loc := gnuGrep(t)
	for _, d := range grepDepartures {
		w := newWS(t, d.files)
		want := runTool(t, w.root, []string{"LC_ALL=" + loc}, gnu, append([]string{"--color=never"}, d.gnu...)...)
		got := w.run("", append([]string{"grep"}, d.stet...)...)
		if got.stdout == want.out && got.code == want.code {
			t.Errorf("%s: stet grep %q answers as GNU grep does (exit %d, %q): the departure is stale; drop it here and in docs/cli.md", d.name, d.stet, got.code, got.stdout)
		}
	}
}
