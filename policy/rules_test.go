package policy

import (
	"strings"
	"testing"
)

func TestProtected(t *testing.T) {
	tests := []struct {
		rules   Rules
		name    string
		pattern string
	}{
		{Rules{}, ".git", ".git/**"},
		{Rules{}, ".git/config", ".git/**"},
		{Rules{}, ".git/objects/ab/cdef", ".git/**"},
		{Rules{}, ".gitignore", ""},
		{Rules{}, "src/main.go", ""},
		{Rules{NoDefaultProtect: true}, ".git/config", ""},
		{Rules{Protect: []string{"*.lock"}}, "web/yarn.lock", "*.lock"},
		{Rules{Protect: []string{"*.lock"}}, ".git/HEAD", ".git/**"},
		{Rules{Protect: []string{"vendor/**", "*.pem"}, NoDefaultProtect: true}, "vendor/x/y.go", "vendor/**"},
		{Rules{Protect: []string{"vendor/**", "*.pem"}}, "keys/k.pem", "*.pem"},
		{Rules{DenyRead: []string{"*.pem"}}, "keys/k.pem", ""}, // deny-read does not protect
	}
	for _, tt := range tests {
		got, ok := tt.rules.Protected(tt.name)
		if got != tt.pattern || ok != (tt.pattern != "") {
			t.Errorf("%+v.Protected(%q) = %q, %v; want %q", tt.rules, tt.name, got, ok, tt.pattern)
		}
	}
}

func TestDenied(t *testing.T) {
	r := Rules{DenyRead: []string{".env", "secrets/**"}}
	for name, want := range map[string]string{
		".env": ".env", "app/.env": ".env", "secrets": "secrets/**", "secrets/db.key": "secrets/**",
		".env.example": "", "src/secrets/x": "", ".git/config": "",
	} {
		got, ok := r.Denied(name)
		if got != want || ok != (want != "") {
			t.Errorf("Denied(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
}

func TestRulesValidate(t *testing.T) {
	if err := (Rules{Protect: []string{"*.pem", "a/**"}, DenyRead: []string{".env"}}).Validate(); err != nil {
		t.Errorf("Validate of good rules = %v", err)
	}
	err := Rules{Protect: []string{"ok", "a["}, DenyRead: []string{"", "fine"}}.Validate()
	if err == nil {
		t.Fatal("Validate of bad rules = nil")
	}
	for _, want := range []string{"protect[1]", "deny-read[0]"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Validate error %q does not name %s", err, want)
		}
	}
}
