package fleetdb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stet-dev/stet/internal/pgtest"
)

// TestMigrate: a database at version 1 holding shipped lines is brought
// to the current version by Migrate, the review's tables filled from
// those lines exactly as a shipper filling a new database would; a second
// Migrate, and two at once, change nothing.
func TestMigrate(t *testing.T) {
	ctx := context.Background()
	old := newFleet(t, 1)
	fresh := newFleet(t, SchemaVersion)
	rows := journalLines(t, "s1", 30)
	rows2 := journalLines(t, "s2", 10)
	for _, f := range []*fleet{old, fresh} {
		db := openDB(t, f.url("host_a"))
		j, err := db.Register(ctx, "laptop", "/state", "ws1", nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Put(ctx, j.ID, 0, nil, rows); err != nil {
			t.Fatal(err)
		}
		j2, err := db.Register(ctx, "laptop", "/state2", "ws2", nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Put(ctx, j2.ID, 0, nil, rows2); err != nil {
			t.Fatal(err)
		}
	}
	adm := openDB(t, old.admin)
	if v, _ := adm.Version(ctx); v != 1 {
		t.Fatalf("version %d, want 1", v)
	}
	if err := openDB(t, old.url("host_a")).CheckVersion(ctx); !errors.Is(err, ErrSchema) {
		t.Fatalf("a shipper on version 1: %v, want ErrSchema", err)
	}
	if _, _, err := openDB(t, old.url("host_a")).Migrate(ctx); err == nil {
		t.Fatal("a shipping role migrated the schema")
	}
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := Open(ctx, old.admin)
			if err != nil {
				errs[i] = err
				return
			}
			defer db.Close()
			_, _, errs[i] = db.Migrate(ctx)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := adm.Version(ctx); v != SchemaVersion {
		t.Fatalf("version %d after Migrate, want %d", v, SchemaVersion)
	}
	if from, to, err := adm.Migrate(ctx); err != nil || from != SchemaVersion || to != SchemaVersion {
		t.Fatalf("Migrate of a current schema: %d -> %d, %v; want nothing to do", from, to, err)
	}
	if n := count(t, old.admin, "SELECT count(*) FROM stet.schema_version"); n != int64(SchemaVersion) {
		t.Fatalf("%d steps recorded, want %d", n, SchemaVersion)
	}
	for _, q := range []string{
		"SELECT coalesce(sum(receipts * 1000 + refusals), 0) FROM stet.sessions",
		"SELECT count(*) FROM stet.sessions",
		"SELECT count(*) FROM stet.paths",
		"SELECT coalesce(sum(count), 0) FROM stet.kinds",
	} {
		if got, want := count(t, old.admin, q), count(t, fresh.admin, q); got != want || want == 0 {
			t.Errorf("%s: %d after the migration, %d when shipped to the current schema", q, got, want)
		}
	}
	if err := openDB(t, old.url("host_a")).CheckVersion(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestMigrateNewer: a database a newer stet migrated is left as it is by
// this one's Migrate, which says to use a newer stet; its steps are not
// run again.
func TestMigrateNewer(t *testing.T) {
	ctx := context.Background()
	f := newFleet(t, SchemaVersion)
	pgtest.Exec(t, f.admin, fmt.Sprintf("INSERT INTO stet.schema_version (version) VALUES (%d)", SchemaVersion+1))
	from, to, err := openDB(t, f.admin).Migrate(ctx)
	if !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), "use a newer stet") || from != SchemaVersion+1 || to != from {
		t.Fatalf("Migrate of a newer schema: %d -> %d, %v; want it refused, unchanged, naming the next step", from, to, err)
	}
	if n := count(t, f.admin, "SELECT count(*) FROM stet.schema_version"); n != int64(SchemaVersion+1) {
		t.Fatalf("%d steps recorded, want %d", n, SchemaVersion+1)
	}
}
