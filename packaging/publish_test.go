package packaging

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestPublishChecksCredentials runs scripts/release.sh --check-publish, which
// checks the credentials publishing needs and stops: no build, no network. The
// environment is made here: no tokens, a gh that knows no login, an
// mcp-publisher that is never run, and an empty home directory.
func TestPublishChecksCredentials(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("release.sh is a bash script; the stand-in tools are shell scripts")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not on PATH")
	}
	script, err := filepath.Abs(filepath.Join("..", "scripts", "release.sh"))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	// gh auth token fails as it does with no login; mcp-publisher must not run.
	for tool, script := range map[string]string{
		"gh":            "#!/bin/sh\nexit 1\n",
		"mcp-publisher": "#!/bin/sh\necho \"mcp-publisher $* ran\" >&2\nexit 1\n",
	} {
		if err := os.WriteFile(filepath.Join(bin, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secrets := t.TempDir()
	cert, key := filepath.Join(secrets, "cert.pem"), filepath.Join(secrets, "key.pem")
	for _, f := range []string{cert, key} {
		if err := os.WriteFile(f, []byte("-----BEGIN TEST-----\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var base []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "NPM_TOKEN", "GH_TOKEN", "GITHUB_TOKEN", "STET_MCPB_CERT", "STET_MCPB_KEY", "HOME", "PATH":
			continue
		}
		base = append(base, kv)
	}
	base = append(base, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	loggedIn := t.TempDir()
	if err := os.WriteFile(filepath.Join(loggedIn, ".mcp_publisher_token"), []byte(`{"token": "t"}`), 0o600); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name     string
		args     []string
		env      []string
		exit     int
		want     []string
		dontWant []string
	}{
		{
			name: "nothing",
			args: []string{"--check-publish"},
			env:  []string{"HOME=" + t.TempDir()},
			exit: 1,
			want: []string{"refusing to publish", "NPM_TOKEN is not set", "set GH_TOKEN", "gh auth login",
				"mcp-publisher login", "STET_MCPB_CERT is not set", "STET_MCPB_KEY is not set", "docs/releasing.md"},
		},
		{
			name:     "only the npm token",
			args:     []string{"--check-publish"},
			env:      []string{"HOME=" + t.TempDir(), "NPM_TOKEN=npm_x", "STET_MCPB_CERT=" + cert, "STET_MCPB_KEY=" + filepath.Join(secrets, "absent.pem")},
			exit:     1,
			want:     []string{"set GH_TOKEN", "mcp-publisher login", "STET_MCPB_KEY names", "not a readable file"},
			dontWant: []string{"NPM_TOKEN", "STET_MCPB_CERT"},
		},
		{
			name: "everything",
			args: []string{"--check-publish"},
			env:  []string{"HOME=" + loggedIn, "NPM_TOKEN=npm_x", "GH_TOKEN=gh_x", "STET_MCPB_CERT=" + cert, "STET_MCPB_KEY=" + key},
			exit: 0,
			want: []string{"every credential for publishing is present"},
		},
		{
			name: "a snapshot",
			args: []string{"--snapshot", "--publish"},
			env:  []string{"HOME=" + loggedIn, "NPM_TOKEN=npm_x", "GH_TOKEN=gh_x", "STET_MCPB_CERT=" + cert, "STET_MCPB_KEY=" + key},
			exit: 1,
			want: []string{"--snapshot builds are never published"},
		},
	} {
		out, err := run(t, t.TempDir(), append(append([]string{}, base...), c.env...), append([]string{bash, script}, c.args...)...)
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if code != c.exit {
			t.Errorf("%s: exit status %d, want %d; output:\n%s", c.name, code, c.exit, out)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output does not say %q:\n%s", c.name, w, out)
			}
		}
		for _, w := range c.dontWant {
			if strings.Contains(out, w) {
				t.Errorf("%s: output names %q, which is present:\n%s", c.name, w, out)
			}
		}
		if strings.Contains(out, " ran") || strings.Contains(out, "release: go build") {
			t.Errorf("%s: the check ran a tool or built:\n%s", c.name, out)
		}
	}
}
