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
		{Rules{}, ".git", ".git"},
		{Rules{}, ".git/config", ".git"},
		{Rules{}, ".git/objects/ab/cdef", ".git"},
		{Rules{}, "sub/.git/config", ".git"},
		{Rules{}, "a/b/.git", ".git"},
		{Rules{}, ".GIT/config", ".git"}, // always case-insensitive
		{Rules{}, "sub/.Git/hooks/pre-commit", ".git"},
		{Rules{}, ".gitignore", ""},
		{Rules{}, "a.git/config", ""},
		{Rules{}, "src/main.go", ""},
		{Rules{NoDefaultProtect: true}, ".git/config", ""},
		{Rules{Protect: []string{"*.lock"}}, "web/yarn.lock", "*.lock"},
		{Rules{Protect: []string{"*.lock"}}, ".git/HEAD", ".git"},
		{Rules{Protect: []string{"vendor/**", "*.pem"}, NoDefaultProtect: true}, "vendor/x/y.go", "vendor/**"},
		{Rules{Protect: []string{"vendor/**", "*.pem"}}, "keys/k.pem", "*.pem"},
		{Rules{Protect: []string{"locked"}}, "locked/b.txt", "locked"}, // gitignore: a matched directory covers its contents
		{Rules{Protect: []string{"locked"}}, "a/locked/b.txt", "locked"},
		{Rules{Protect: []string{"app/config"}}, "app/config/db.yml", "app/config"},
		{Rules{Protect: []string{"app/config"}}, "x/app/config/db.yml", ""},
		// Every spelling a filesystem may take for the name, on every
		// filesystem (a refusal too many where names are case-sensitive).
		{Rules{Protect: []string{"Locked"}}, "locked/b", "Locked"},
		{Rules{Protect: []string{"Locked"}}, "LOCKED/b", "Locked"},
		{Rules{Protect: []string{"deploy.yaml"}}, "ci/DEPLOY.YAML", "deploy.yaml"},
		{Rules{Protect: []string{"caf\u00e9.env"}}, "cafe\u0301.env", "caf\u00e9.env"},
		{Rules{Protect: []string{"deploy.yaml"}}, "deploy.yml", ""},
		{Rules{}, ".G\u0130T/config", ".git"},
		{Rules{}, "x/.g\u200cit/config", ".git"},
		{Rules{DenyRead: []string{"*.pem"}}, "keys/k.pem", ""}, // deny-read does not protect
		{Rules{State: []string{".stet"}, NoDefaultProtect: true}, ".stet/journal.jsonl", StatePattern},
		{Rules{State: []string{".stet"}}, ".stet", StatePattern},
		{Rules{State: []string{".stet"}}, ".stetx", ""},
		{Rules{State: []string{"s/.stet"}}, "S/.STET/x", StatePattern},
		{Rules{State: []string{"s/.stet"}}, "s/.stet./x", StatePattern},
		{Rules{State: []string{"s/.stet"}}, "s/.stetx/x", ""},
	}
	for _, tt := range tests {
		got, ok := tt.rules.Protected(tt.name)
		if got != tt.pattern || ok != (tt.pattern != "") {
			t.Errorf("%+v.Protected(%q) = %q, %v; want %q", tt.rules, tt.name, got, ok, tt.pattern)
		}
	}
}

func TestDenied(t *testing.T) {
	r := Rules{DenyRead: []string{".env", "secrets/**", "keys"}, State: []string{".stet"}}
	for name, want := range map[string]string{
		".env": ".env", "app/.env": ".env", "secrets": "secrets/**", "secrets/db.key": "secrets/**",
		".env.example": "", "src/secrets/x": "", ".git/config": "",
		"keys": "keys", "keys/id_rsa": "keys", "app/keys/id_rsa": "keys", "keys.txt": "",
		".env/inside": ".env", ".stet/sessions/x.jsonl": StatePattern,
		// Every spelling of a denied name is denied, on every filesystem.
		".ENV": ".env", "app/.Env": ".env", "Secrets/DB.key": "secrets/**", "KEYS./id": "keys",
		".STET/x": StatePattern, "app/.env.": ".env", "app/.ENV.example": "",
	} {
		got, ok := r.Denied(name)
		if got != want || ok != (want != "") {
			t.Errorf("Denied(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
	if (Rules{}).HasDenied() || !(Rules{State: []string{"s"}}).HasDenied() || !r.HasDenied() {
		t.Error("HasDenied")
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
