package packaging

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// installChannels are the ways to install stet: the start of the channel's row
// in docs/install.md's "What is live" table, and what names the channel in
// the README.
var installChannels = []struct {
	row  string
	mark *regexp.Regexp
}{
	{"build from a clone", regexp.MustCompile(`go (build|install|run) \./cmd/stet`)},
	{"`scripts/release.sh` output", regexp.MustCompile(`scripts/release\.sh`)},
	{"release archives", regexp.MustCompile(`github\.com/stet-dev/stet/releases`)},
	{"npm", regexp.MustCompile(`@stet-dev/stet`)},
	{"Claude Desktop extension", regexp.MustCompile(`\.mcpb\b`)},
	{"`go install github.com/stet-dev/stet/cmd/stet@latest`", regexp.MustCompile(`stet-dev/stet/cmd/stet@`)},
	{"MCP Registry entry", regexp.MustCompile(`(?i)MCP Registry|server\.json`)},
}

// notYet marks a passage that offers a channel before it is live.
const notYet = "after the first release"

// liveChannels reads the table under "## What is live" in docs/install.md:
// each channel's row and whether its status is "live".
func liveChannels(install string) (map[string]bool, error) {
	_, section, ok := strings.Cut(install, "\n## What is live\n")
	if !ok {
		return nil, fmt.Errorf(`no "## What is live" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	live := map[string]bool{}
	for _, c := range installChannels {
		found := false
		for _, line := range strings.Split(section, "\n") {
			cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
			if len(cells) < 2 || !strings.HasPrefix(strings.TrimSpace(cells[0]), c.row) {
				continue
			}
			if found {
				return nil, fmt.Errorf("two rows for the channel %q", c.row)
			}
			found = true
			switch status := strings.TrimSpace(cells[len(cells)-1]); status {
			case "live":
				live[c.row] = true
			case notYet:
				live[c.row] = false
			default:
				return nil, fmt.Errorf("channel %q has status %q, want live or %q", c.row, status, notYet)
			}
		}
		if !found {
			return nil, fmt.Errorf("no row for the channel %q", c.row)
		}
	}
	return live, nil
}

// readmePassages splits markdown into passages: paragraphs, and each list
// item on its own, with the line each starts at.
func readmePassages(text string) (passages []string, lines []int) {
	var cur []string
	start := 0
	flush := func() {
		if len(cur) > 0 {
			passages = append(passages, strings.Join(cur, "\n"))
			lines = append(lines, start)
		}
		cur = nil
	}
	for i, line := range strings.Split(text, "\n") {
		item := strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* ")
		if strings.TrimSpace(line) == "" || item {
			flush()
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if len(cur) == 0 {
			start = i + 1
		}
		cur = append(cur, line)
	}
	flush()
	return passages, lines
}

// unlistedChannels returns the README's passages that offer a channel
// install.md does not list as live, without saying "after the first release".
func unlistedChannels(readme, install string) ([]string, error) {
	live, err := liveChannels(install)
	if err != nil {
		return nil, fmt.Errorf("docs/install.md: %w", err)
	}
	var bad []string
	passages, lines := readmePassages(readme)
	for i, p := range passages {
		if strings.Contains(strings.ToLower(p), notYet) {
			continue
		}
		for _, c := range installChannels {
			if m := c.mark.FindString(p); m != "" && !live[c.row] {
				bad = append(bad, fmt.Sprintf("line %d offers %s (%q), which docs/install.md does not list as live; mark it %q",
					lines[i], c.row, m, notYet))
			}
		}
	}
	return bad, nil
}

// TestReadmeOffersLiveChannels fails when README.md offers a way to install
// stet that docs/install.md's "What is live" does not list as live, unless
// the passage says "after the first release".
func TestReadmeOffersLiveChannels(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	install, err := os.ReadFile(filepath.Join("..", "docs", "install.md"))
	if err != nil {
		t.Fatal(err)
	}
	bad, err := unlistedChannels(string(readme), string(install))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Errorf("README.md: %s", b)
	}
}

// TestUnlistedChannels checks the check on small texts.
func TestUnlistedChannels(t *testing.T) {
	table := func(npm string) string {
		var b strings.Builder
		b.WriteString("# Installing\n\n## What is live\n\n| channel | status |\n| --- | --- |\n")
		for _, c := range installChannels {
			status := notYet
			if c.row == "build from a clone" || (c.row == "npm" && npm == "live") {
				status = "live"
			}
			fmt.Fprintf(&b, "| %s (more) | %s |\n", c.row, status)
		}
		b.WriteString("\n## From npm\n\n| npm | live |\n")
		return b.String()
	}
	for _, c := range []struct {
		name, readme, npm string
		bad               int
	}{
		{"clone", "Build it:\n\n- `go install ./cmd/stet` from a clone\n", notYet, 0},
		{"npm unmarked", "- **npm**: `npm install -g @stet-dev/stet`\n- **A release**: after the first release, the\n  [releases page](https://github.com/stet-dev/stet/releases)\n", notYet, 1},
		{"npm marked", "- **npm** (After the first release): `npm install -g @stet-dev/stet`\n", notYet, 0},
		{"npm live", "- **npm**: `npm install -g @stet-dev/stet`\n", "live", 0},
		{"mark in another paragraph", "After the first release:\n\n`npm install -g @stet-dev/stet` and the `stet_1_linux_amd64.mcpb`\n", notYet, 2},
	} {
		bad, err := unlistedChannels(c.readme, table(c.npm))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(bad) != c.bad {
			t.Errorf("%s: %d passages found, want %d: %q", c.name, len(bad), c.bad, bad)
		}
	}
	if _, err := unlistedChannels("", "\n## What is live\n\n| npm | live |\n"); err == nil {
		t.Error("a table without every channel was accepted")
	}
	if _, err := unlistedChannels("", strings.Replace(table(notYet), "| npm (more) | "+notYet, "| npm (more) | soon", 1)); err == nil {
		t.Error("a status other than live or after the first release was accepted")
	}
}
