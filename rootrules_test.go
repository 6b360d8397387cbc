package stet

import (
	"testing"

	"github.com/stet-dev/stet/policy"
)

// TestNestedRootsFoldCase: on a filesystem that folds case, roots spelled
// in different letter cases still nest, and a name in the outer root is
// matched to the inner root whatever its case, so a rule with a slash is
// judged in both (the host filesystem of the tests does not fold, so the
// roots' rules are set as Open sets them on one that does).
func TestNestedRootsFoldCase(t *testing.T) {
	rules := policy.Rules{DenyRead: []string{"services/api/secret.txt", "conf/db.env"}, FoldCase: true}
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
	} {
		if _, ok := c.r.rules.Denied(c.name); !ok {
			t.Errorf("%s in %s is not denied", c.name, c.r.dir)
		}
	}
	if _, ok := inner.rules.Denied("handler.go"); ok {
		t.Error("handler.go is denied")
	}
	// Where neither root folds case, the differently spelled directories
	// are two directories, and nothing nests.
	outer.rules.FoldCase, inner.rules.FoldCase = false, false
	ws.linkRoots()
	if len(outer.rules.views)+len(inner.rules.views) != 0 {
		t.Errorf("case-sensitive roots nest: %+v %+v", outer.rules.views, inner.rules.views)
	}
}
