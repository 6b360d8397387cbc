package fleetdb

import (
	"context"
	"strings"
	"testing"

	"github.com/stet-dev/stet/internal/pgtest"
)

// TestVerifyFindsTampering: rows changed behind the triggers' back (as
// only the tables' owner or a superuser can) are each named by Verify: a
// column, the bytes, a removed row (a gap), a rewritten line with its hash
// (a fork at the next line), a changed blob.
func TestVerifyFindsTampering(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name, sql, want string
	}{
		{"column", "UPDATE stet.records SET path = 'src/other.go' WHERE seq = 3", "seq 3: changed row: its path"},
		{"bytes", "ALTER TABLE stet.records DROP CONSTRAINT records_check; UPDATE stet.records SET line = convert_to(replace(convert_from(line, 'UTF8'), 'edit', 'EDIT'), 'UTF8') WHERE seq = 4", "seq 4: changed row: its bytes hash to"},
		{"gap", "DELETE FROM stet.records WHERE seq = 5", "seq 5 to 5 are missing (a gap)"},
		{"fork", "UPDATE stet.records SET line = convert_to(replace(convert_from(line, 'UTF8'), 'r_s1_2', 'r_s1_X'), 'UTF8'), hash = 'sha256:' || encode(sha256(convert_to(replace(convert_from(line, 'UTF8'), 'r_s1_2', 'r_s1_X'), 'UTF8')), 'hex'), receipt = 'r_s1_X' WHERE seq = 3",
			"seq 4: does not chain to seq 3"},
		{"blob", "ALTER TABLE stet.blobs DROP CONSTRAINT blobs_check; UPDATE stet.blobs SET data = 'other bytes'", "changed blob"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFleet(t, SchemaVersion)
			db := openDB(t, f.url("host_a"))
			j, err := db.Register(ctx, "laptop", "/state", "ws1", nil)
			if err != nil {
				t.Fatal(err)
			}
			rows := journalLines(t, "s1", 8)
			if _, err := db.Put(ctx, j.ID, 0, []Blob{{Hash: "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", Data: []byte("hello")}}, rows); err != nil {
				t.Fatal(err)
			}
			reader := openDB(t, f.url("reader"))
			rep, err := reader.Verify(ctx)
			if err != nil || !rep.OK() || rep.Lines != int64(len(rows)) || rep.Blobs != 1 || rep.Chains != 1 {
				t.Fatalf("before tampering: %+v, %v", rep, err)
			}
			pgtest.Exec(t, f.admin, "SET session_replication_role = replica; "+c.sql)
			rep, err = reader.Verify(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var msgs []string
			for _, p := range rep.Problems {
				msgs = append(msgs, p.String())
			}
			if !strings.Contains(strings.Join(msgs, "\n"), c.want) {
				t.Fatalf("after %s: problems %q, want one with %q", c.sql, msgs, c.want)
			}
		})
	}
}
