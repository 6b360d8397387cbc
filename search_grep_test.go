package stet_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// grepTree writes a tree with CRLF lines, a binary file, invalid UTF-8,
// long lines and Unicode names, and returns its files.
func grepTree(t *testing.T) map[string]string {
	t.Helper()
	long := strings.Repeat("x", 1500)
	files := map[string]string{
		"crlf.txt":           "alpha needle\r\nbeta\r\nneedle gamma\r\n",
		"lf.txt":             "needle\nneedle needle\nno\n\nend needle",
		"bin.dat":            "needle\x00binary\nneedle again\n",
		"late-nul.dat":       strings.Repeat("needle line\n", 1000) + "\x00",
		"bad-utf8.txt":       "caf\xe9 latin-1\nneedle after\n",
		"long.txt":           "short\n" + long + " needle " + long + "\nneedle tail\n",
		"unicode/naïve.txt":  "ünïcödé needle ✓\n",
		"unicode/日本/ファイル.md": "needle 日本語\n",
		"space name.txt":     "a needle in a name with a space\n",
		"empty.txt":          "",
		"deep/a/b/c/d.go":    "package d\n// needle\nfunc needle() {}\n",
		"Needle-case.txt":    "NEEDLE upper\nNeedle mixed\nneedle lower\n",
		"words.txt":          "needles\nneedle\nneedle_x\nxneedle\n(needle)\n",
		"multi.txt":          "begin\nneedle one\nmiddle\nneedle two\nend\n",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 40 {
		var b strings.Builder
		for j := range 30 {
			switch rng.IntN(4) {
			case 0:
				fmt.Fprintf(&b, "line %d needle %d\n", j, rng.IntN(100))
			case 1:
				fmt.Fprintf(&b, "err != nil %d\r\n", j)
			default:
				fmt.Fprintf(&b, "plain %d\n", j)
			}
		}
		files[fmt.Sprintf("gen/%02d/f%d.txt", i%7, i)] = b.String()
	}
	return files
}

// grepRN runs grep -rn in dir (C.UTF-8, so invalid UTF-8 marks a binary
// file as in stet) and returns its rows, sorted, without "./", and the
// files it called binary.
func grepRN(t *testing.T, dir string, args ...string) (rows []string, binary map[string]bool) {
	t.Helper()
	cmd := exec.Command("grep", append(append([]string{"-rn"}, args...), ".")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("grep: %v", err)
		}
	}
	binary = map[string]bool{}
	for _, line := range strings.SplitAfter(string(out), "\n") {
		if line == "" {
			continue
		}
		line = strings.TrimSuffix(line, "\n")
		if rest, ok := strings.CutPrefix(line, "Binary file ./"); ok {
			binary[strings.TrimSuffix(rest, " matches")] = true
			continue
		}
		rows = append(rows, strings.TrimPrefix(line, "./"))
	}
	// grep 3.5 and later say it on stderr.
	for _, line := range strings.Split(stderr.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "grep: ./"); ok && strings.HasSuffix(rest, ": binary file matches") {
			binary[strings.TrimSuffix(rest, ": binary file matches")] = true
		}
	}
	slices.Sort(rows)
	return rows, binary
}

// stetRows is a grep result as grep -rn prints it, sorted. A line cut at
// the display bound is compared by its shown part.
func stetRows(res *stet.GrepResult) []string {
	var rows []string
	for _, m := range res.Matches {
		sep := ":"
		if m.Context {
			sep = "-"
		}
		rows = append(rows, m.Path+sep+strconv.Itoa(m.Line)+sep+m.Text)
	}
	slices.Sort(rows)
	return rows
}

// TestGrepEqualsGrepRN compares grep with grep -rn (ignore rules off) on a
// tree of awkward files, for several options.
func TestGrepEqualsGrepRN(t *testing.T) {
	if _, err := exec.LookPath("grep"); err != nil {
		t.Skip("grep is not installed")
	}
	isolateGitConfig(t)
	files := grepTree(t)
	_, s, root := open(t, files, stet.Options{})
	// Binary by grep's rules but skipped by stet for the same reason:
	// a NUL in the first block or invalid UTF-8.
	for _, c := range []struct {
		name string
		args stet.GrepArgs
		grep []string
	}{
		{"literal", stet.GrepArgs{Pattern: "needle"}, []string{"-e", "needle"}},
		{"regexp", stet.GrepArgs{Pattern: `ne+dle [0-9]+$`}, []string{"-E", "-e", `ne+dle [0-9]+$`}},
		{"ignore case", stet.GrepArgs{Pattern: "needle", IgnoreCase: true}, []string{"-i", "-e", "needle"}},
		{"fixed", stet.GrepArgs{Pattern: "err != nil", FixedStrings: true}, []string{"-F", "-e", "err != nil"}},
		{"fixed metachars", stet.GrepArgs{Pattern: "(needle)", FixedStrings: true}, []string{"-F", "-e", "(needle)"}},
		{"word", stet.GrepArgs{Pattern: "needle", Word: true}, []string{"-w", "-e", "needle"}},
		{"context", stet.GrepArgs{Pattern: "needle two", Context: 2}, []string{"-C", "2", "-e", "needle two"}},
		{"before after", stet.GrepArgs{Pattern: "middle", Before: 1, After: 2}, []string{"-B", "1", "-A", "2", "-e", "middle"}},
		{"no literal", stet.GrepArgs{Pattern: `^[a-z]+$`}, []string{"-E", "-e", `^[a-z]+$`}},
		{"empty lines", stet.GrepArgs{Pattern: `^$`}, []string{"-e", `^$`}},
		{"unicode", stet.GrepArgs{Pattern: "日本"}, []string{"-e", "日本"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.args.NoIgnore = true
			c.args.Limit = stet.MaxGrepLimit
			res, err := s.Grep(ctx, c.args)
			if err != nil {
				t.Fatal(err)
			}
			got := stetRows(res)
			want, binary := grepRN(t, root, c.grep...)
			for i, w := range want {
				// grep -rn prints "--" between context groups; stet has no
				// such row.
				if w == "--" {
					want[i] = ""
				}
			}
			want = slices.DeleteFunc(want, func(s string) bool { return s == "" })
			for i, g := range got {
				// The display bound cuts long lines; compare the shown part.
				if j := strings.Index(g, " … (line is "); j >= 0 {
					got[i] = g[:j]
					for k, w := range want {
						if strings.HasPrefix(w, got[i]) && len(w) > len(got[i])+1000 {
							want[k] = got[i]
						}
					}
				}
			}
			// grep calls a file binary for a NUL anywhere in what it has
			// read and shows its valid lines around invalid UTF-8; stet
			// skips a file with a NUL in its first 8 KiB (as read refuses
			// it) and any file that is not UTF-8 (read refuses it too).
			notShown := map[string]bool{"bin.dat": true, "bad-utf8.txt": true}
			got = slices.DeleteFunc(got, func(r string) bool {
				p, _, _ := strings.Cut(r, ":")
				if notShown[p] {
					t.Errorf("stet showed %q", r)
				}
				return binary[p]
			})
			want = slices.DeleteFunc(want, func(r string) bool {
				p, _, _ := strings.Cut(r, ":")
				return binary[p] || notShown[p]
			})
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("grep %v differs:\n%s", c.grep, rowDiff(got, want))
			}
		})
	}
}

// TestGrepPaging pages through every match with small limits: each match
// comes back exactly once, in the order of one unpaged call; in every
// mode.
func TestGrepPaging(t *testing.T) {
	isolateGitConfig(t)
	_, s, _ := open(t, grepTree(t), stet.Options{})
	for _, c := range []struct {
		path  string
		limit int
	}{{"gen/01", 1}, {"gen", 7}, {"", 50}, {"", 997}} {
		full, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle", Path: c.path, Limit: stet.MaxGrepLimit})
		if err != nil || full.Truncated || len(full.Matches) < 40 {
			t.Fatalf("unpaged: %d matches, truncated %v, %v", len(full.Matches), full.Truncated, err)
		}
		limit := c.limit
		var got []stet.GrepMatch
		for offset := 0; ; offset += limit {
			page, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle", Path: c.path, Offset: offset, Limit: limit})
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, page.Matches...)
			if !page.Truncated {
				break
			}
			if len(page.Matches) != limit {
				t.Fatalf("limit %d offset %d: a truncated page of %d", limit, offset, len(page.Matches))
			}
		}
		if !slices.Equal(got, full.Matches) {
			t.Fatalf("limit %d: pages differ from the unpaged result (%d vs %d rows)", limit, len(got), len(full.Matches))
		}
	}
	for _, mode := range []string{stet.GrepFilesWithMatches, stet.GrepCount} {
		all, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle", OutputMode: mode})
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		var counts []stet.GrepCountRow
		for offset := 0; ; offset += 4 {
			page, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle", OutputMode: mode, Offset: offset, Limit: 4})
			if err != nil {
				t.Fatal(err)
			}
			paths = append(paths, page.Paths...)
			counts = append(counts, page.Counts...)
			if !page.Truncated {
				break
			}
		}
		if !slices.Equal(paths, all.Paths) || !slices.Equal(counts, all.Counts) {
			t.Fatalf("%s: pages differ from the unpaged result", mode)
		}
	}
}

// TestGrepModes: files_with_matches and count agree with content, show no
// lines and observe nothing; type and multiline narrow and widen matches.
func TestGrepModes(t *testing.T) {
	isolateGitConfig(t)
	files := grepTree(t)
	_, s, _ := open(t, files, stet.Options{})
	content, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle", Limit: stet.MaxGrepLimit})
	if err != nil {
		t.Fatal(err)
	}
	if len(content.Matches) == 0 {
		t.Fatal("no match in the tree: the modes below would agree on nothing")
	}
	perFile := map[string]int{}
	var order []string
	for _, m := range content.Matches {
		if perFile[m.Path] == 0 {
			order = append(order, m.Path)
		}
		perFile[m.Path]++
	}
	fw, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle", OutputMode: stet.GrepFilesWithMatches})
	if err != nil || !slices.Equal(fw.Paths, order) || fw.Matches != nil {
		t.Fatalf("files_with_matches: %+v %v, want %q", fw, err, order)
	}
	ct, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle", OutputMode: stet.GrepCount})
	if err != nil || len(ct.Counts) != len(order) {
		t.Fatalf("count: %+v %v", ct, err)
	}
	for i, c := range ct.Counts {
		if c.Path != order[i] || c.Count != perFile[c.Path] {
			t.Fatalf("count row %d: %+v, want %s:%d", i, c, order[i], perFile[order[i]])
		}
	}
	// The other modes observe nothing: a fresh session cannot edit after them.
	_, s2, _ := open(t, map[string]string{"a.txt": "needle\n"}, stet.Options{})
	for _, mode := range []string{stet.GrepFilesWithMatches, stet.GrepCount} {
		if _, err := s2.Grep(ctx, stet.GrepArgs{Pattern: "needle", OutputMode: mode}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s2.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("needle"), NewString: ptr("pin")}); kindOf(err) != stet.KindNotRead {
		t.Fatalf("edit after files_with_matches and count: %v, want not_read", err)
	}
	goOnly, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle", Type: "go"})
	if err != nil || len(goOnly.Matches) != 2 || goOnly.Matches[0].Path != "deep/a/b/c/d.go" {
		t.Fatalf("type go: %+v %v", goOnly, err)
	}
	multi, err := s.Grep(ctx, stet.GrepArgs{Pattern: `one\nmiddle`, Multiline: true, Path: "multi.txt"})
	if err != nil || len(multi.Matches) != 2 || multi.Matches[0].Line != 2 || multi.Matches[1].Line != 3 {
		t.Fatalf("multiline: %+v %v", multi, err)
	}
	single, err := s.Grep(ctx, stet.GrepArgs{Pattern: `one\nmiddle`, Path: "multi.txt"})
	if err != nil || len(single.Matches) != 0 {
		t.Fatalf("a line break without multiline: %+v %v", single, err)
	}
	if _, err := s.Grep(ctx, stet.GrepArgs{Pattern: "x", Type: "golang"}); kindOf(err) != stet.KindInvalid {
		t.Fatalf("unknown type: %v", err)
	}
	if _, err := s.Grep(ctx, stet.GrepArgs{Pattern: "x", OutputMode: "lines"}); kindOf(err) != stet.KindInvalid {
		t.Fatalf("unknown output_mode: %v", err)
	}
	if _, err := s.Grep(ctx, stet.GrepArgs{Pattern: "(", FixedStrings: true}); err != nil {
		t.Fatalf("fixed_strings with a metacharacter: %v", err)
	}
	if _, err := s.Grep(ctx, stet.GrepArgs{Pattern: "x", Exclude: []string{"a/[b"}}); kindOf(err) != stet.KindInvalid {
		t.Fatalf("bad exclude glob: %v", err)
	}
}

// rowDiff lists the rows only one side has.
func rowDiff(got, want []string) string {
	var b strings.Builder
	g, w := map[string]bool{}, map[string]bool{}
	for _, r := range got {
		g[r] = true
	}
	for _, r := range want {
		w[r] = true
	}
	for _, r := range got {
		if !w[r] {
			fmt.Fprintf(&b, "  only stet: %.200q\n", r)
		}
	}
	for _, r := range want {
		if !g[r] {
			fmt.Fprintf(&b, "  only grep: %.200q\n", r)
		}
	}
	return b.String()
}
