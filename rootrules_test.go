package stet

import (
	"testing"

	"github.com/stet-dev/stet/policy"
)

// TestNestedRootsFoldCase: roots spelled in different letter cases or
// Unicode forms nest (on a filesystem that folds them they are one
// directory; on one that does not, the rules of each merely reach the
// other's names too), and a name in the outer root is matched to the inner
// root whatever its spelling, so a rule with a slash is judged in both.
func TestNestedRootsFoldCase(t *testing.T) {
	rules := policy.Rules{DenyRead: []string{"services/api/secret.txt", "conf/db.env"}}
	outer := &root{dir: "/Work/Repo", real: "/Work/Repo", rules: ruleSet{Rules: rules}}
	inner := &root{dir: "/work/repo/Services/API", real: "/work/repo/Services/API", rules: ruleSet{Rules: rules}}
	ws := &Workspace{roots: []*root{outer, inner}}
	ws.linkRoots()
	for _, c := range []struct {
		r    *root
		name string
	}{
		{inner, "secret.txt"},
		{inner, "SECRET.TXT"},
		{outer, "services/api/conf/db.env"},
		{outer, "SERVICES/Api/conf/DB.env"},
		{outer, "Services./API/conf/db.env"},
	} {
		if _, ok := c.r.rules.Denied(c.name); !ok {
			t.Errorf("%s in %s is not denied", c.name, c.r.dir)
		}
	}
	if _, ok := inner.rules.Denied("handler.go"); ok {
		t.Error("handler.go is denied")
	}
	// A root whose path is spelled in the other Unicode form.
	nfc := &root{dir: "/w/caf\u00e9", real: "/w/caf\u00e9", rules: ruleSet{Rules: rules}}
	nfd := &root{dir: "/w/cafe\u0301/conf", real: "/w/cafe\u0301/conf", rules: ruleSet{Rules: rules}}
	ws = &Workspace{roots: []*root{nfc, nfd}}
	ws.linkRoots()
	if _, ok := nfd.rules.Denied("db.env"); !ok {
		t.Error("conf/db.env of the outer root, spelled decomposed in the inner, is not denied")
	}
	// Directories whose names differ otherwise do not nest.
	other := &root{dir: "/w/cafe", real: "/w/cafe", rules: ruleSet{Rules: rules}}
	ws = &Workspace{roots: []*root{nfc, other}}
	ws.linkRoots()
	if len(nfc.rules.views)+len(other.rules.views) != 0 {
		t.Errorf("distinct roots nest: %+v %+v", nfc.rules.views, other.rules.views)
	}
}
