package dbtest_test

import (
	"context"
	"database/sql"
	"net/url"
	"strings"
	"testing"

	"github.com/rebound-hq/rebound/internal/dbtest"
	"github.com/rebound-hq/rebound/migrations"
)

func TestNewGivesSeparateMigratedDatabases(t *testing.T) {
	var names []string
	for i := range 2 {
		db := dbtest.New(t)
		var name string
		if err := db.Raw("SELECT current_database()").Scan(&name).Error; err != nil {
			t.Fatalf("database %d: %v", i, err)
		}
		if !strings.HasPrefix(name, "rebound_test_") {
			t.Errorf("database %d is %q, want a rebound_test_ name", i, name)
		}
		names = append(names, name)
		sqlDB, err := db.DB()
		if err != nil {
			t.Fatal(err)
		}
		if err := migrations.Check(context.Background(), sqlDB); err != nil {
			t.Errorf("database %d not fully migrated: %v", i, err)
		}
	}
	if names[0] == names[1] {
		t.Errorf("both calls returned database %q", names[0])
	}
}

func TestDatabaseDroppedAfterTest(t *testing.T) {
	var dsn string
	t.Run("user", func(t *testing.T) {
		dsn = dbtest.NewURL(t)
		db, err := sql.Open("pgx", dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		// An open connection must not keep the database from being dropped.
		if err := db.Ping(); err != nil {
			t.Fatal(err)
		}
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	admin, err := sql.Open("pgx", dbtest.NewEmptyURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var exists bool
	if err := admin.QueryRow("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Errorf("database %s still exists after its test ended", name)
	}
}

func TestNewEmptyURLHasNoSchema(t *testing.T) {
	db, err := sql.Open("pgx", dbtest.NewEmptyURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("empty database has %d tables, want 0", n)
	}
}
