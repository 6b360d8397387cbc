package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMCPToken: the bearer token comes from --token, --token-file or
// STET_TOKEN (the last two keep it out of the process list); a token file
// is trimmed of its final newline; giving two ways is bad usage.
func TestMCPToken(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	if err := os.WriteFile(file, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		flag, path string
		env        string
		want       string
		wantUsage  bool
	}{
		{name: "none"},
		{name: "env", env: "from-env", want: "from-env"},
		{name: "flag", flag: "from-flag", want: "from-flag"},
		{name: "file", path: file, want: "from-file"},
		{name: "file over env", path: file, env: "from-env", want: "from-file"},
		{name: "flag over env", flag: "from-flag", env: "from-env", want: "from-flag"},
		{name: "flag and file", flag: "from-flag", path: file, wantUsage: true},
		{name: "missing file", path: filepath.Join(dir, "nope"), wantUsage: true},
		{name: "empty file", path: empty, wantUsage: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mcpToken(tc.flag, tc.path, func(string) string { return tc.env })
			_, usage := err.(*usageError)
			if got != tc.want || usage != tc.wantUsage || (err != nil && !usage) {
				t.Errorf("mcpToken = %q, %v; want %q (usage error: %v)", got, err, tc.want, tc.wantUsage)
			}
		})
	}
}
