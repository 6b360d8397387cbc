package glob

import "testing"

func TestCovers(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"secrets", "secrets", true},
		{"secrets", "secrets/key.txt", true},
		{"secrets", "app/secrets/key.txt", true},
		{"secrets", "app/secrets", true},
		{"secrets", "secretsx/key", false},
		{"secrets", "app/my-secrets/key", false},
		{"*.pem", "k.pem/inner", true},
		{"a/*.go", "a/x.go/y", true},
		{"a/*.go", "a/x.go", true},
		{"a/*.go", "x/a/b.go", false},
		{"build/", "build/out/x.o", true},
		{".git/**", ".git/x/y", true},
		{"/k", "k/x", true},
		{"/k", "a/k/x", false},
		{"a/**/b", "a/x/b/c", true},
		{"a[", "a[", false},
		{"/secret*", "secret", true}, // the matcher's "secret*/**" misses it
		{"a/b*", "a/b", true},
		{"a/?*", "a/bc", true},
		{"a/b*", "a/b/c", true},
	}
	for _, tt := range tests {
		if got := Covers(tt.pattern, tt.name); got != tt.want {
			t.Errorf("Covers(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
	if !CoversFold(".git", "a/.GIT/config") || !CoversFold("Secrets/*.KEY", "secrets/a.key/x") || Covers(".git", ".GIT") {
		t.Error("CoversFold")
	}
}
