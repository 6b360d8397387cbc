package engine

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
	outer := &Root{Dir: "/Work/Repo", Real: "/Work/Repo", Rules: RuleSet{Rules: rules}}
	inner := &Root{Dir: "/work/repo/Services/API", Real: "/work/repo/Services/API", Rules: RuleSet{Rules: rules}}
	ws := &Workspace{RootList: []*Root{outer, inner}}
	ws.LinkRoots()
	for _, c := range []struct {
		r    *Root
		name string
	}{
		{inner, "secret.txt"},
		{inner, "SECRET.TXT"},
		{outer, "services/api/conf/db.env"},
		{outer, "SERVICES/Api/conf/DB.env"},
		{outer, "Services./API/conf/db.env"},
	} {
		if _, ok := c.r.Rules.Denied(c.name); !ok {
			t.Errorf("%s in %s is not denied", c.name, c.r.Dir)
		}
	}
	if _, ok := inner.Rules.Denied("handler.go"); ok {
		t.Error("handler.go is denied")
	}
	// A root whose path is spelled in the other Unicode form.
	nfc := &Root{Dir: "/w/caf\u00e9", Real: "/w/caf\u00e9", Rules: RuleSet{Rules: rules}}
	nfd := &Root{Dir: "/w/cafe\u0301/conf", Real: "/w/cafe\u0301/conf", Rules: RuleSet{Rules: rules}}
	ws = &Workspace{RootList: []*Root{nfc, nfd}}
	ws.LinkRoots()
	if _, ok := nfd.Rules.Denied("db.env"); !ok {
		t.Error("conf/db.env of the outer root, spelled decomposed in the inner, is not denied")
	}
	// Directories whose names differ otherwise do not nest.
	other := &Root{Dir: "/w/cafe", Real: "/w/cafe", Rules: RuleSet{Rules: rules}}
	ws = &Workspace{RootList: []*Root{nfc, other}}
	ws.LinkRoots()
	if len(nfc.Rules.Views)+len(other.Rules.Views) != 0 {
		t.Errorf("distinct roots nest: %+v %+v", nfc.Rules.Views, other.Rules.Views)
	}
}
