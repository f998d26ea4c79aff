package migrations_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/rebound-hq/rebound/internal/dbtest"
	"github.com/rebound-hq/rebound/migrations"
)

// TestUpDownUp applies every migration, rolls back one step, rolls back to
// zero, and applies them all again, against the real PostgreSQL.
func TestUpDownUp(t *testing.T) {
	ctx := context.Background()
	db, p := emptyDB(t)
	latest, err := migrations.Latest()
	if err != nil {
		t.Fatal(err)
	}
	if latest < 1 {
		t.Fatalf("Latest() = %d, want at least one embedded migration", latest)
	}
	if err := migrations.Check(ctx, db); !errors.Is(err, migrations.ErrOutdated) {
		t.Fatalf("Check on an empty database = %v, want ErrOutdated", err)
	}

	up := func(step string) {
		t.Helper()
		if _, err := p.Up(ctx); err != nil {
			t.Fatalf("%s: up: %v", step, err)
		}
		if v, err := p.GetDBVersion(ctx); err != nil || v != latest {
			t.Fatalf("%s: version after up = %d, %v; want %d", step, v, err, latest)
		}
		if err := migrations.Check(ctx, db); err != nil {
			t.Fatalf("%s: Check after up: %v", step, err)
		}
	}
	up("first")
	first := tables(t, db)
	if len(first) == 0 {
		t.Fatal("no tables after migrating up")
	}

	if _, err := p.Down(ctx); err != nil {
		t.Fatalf("down one step: %v", err)
	}
	if latest > 1 {
		if err := migrations.Check(ctx, db); !errors.Is(err, migrations.ErrOutdated) {
			t.Errorf("Check one step down = %v, want ErrOutdated", err)
		}
	}
	if _, err := p.DownTo(ctx, 0); err != nil {
		t.Fatalf("down to zero: %v", err)
	}
	if v, err := p.GetDBVersion(ctx); err != nil || v != 0 {
		t.Fatalf("version after down to zero = %d, %v; want 0", v, err)
	}
	if left := tables(t, db); len(left) != 1 || left[0] != "goose_db_version" {
		t.Errorf("tables left after down to zero: %v, want only goose_db_version", left)
	}

	up("again")
	again := tables(t, db)
	if len(again) != len(first) {
		t.Errorf("tables after second up = %v, first up had %v", again, first)
	}

	// A lower migration that lands after a higher one was applied counts as
	// pending: forget version 1's record and Check must call the schema
	// outdated, though the newest version is applied.
	if _, err := db.ExecContext(ctx, "DELETE FROM goose_db_version WHERE version_id = 1"); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Check(ctx, db); !errors.Is(err, migrations.ErrOutdated) {
		t.Errorf("Check with version 1 unrecorded = %v, want ErrOutdated", err)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO goose_db_version (version_id, is_applied) VALUES (1, true)"); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Check(ctx, db); err != nil {
		t.Errorf("Check with version 1 recorded again = %v, want nil", err)
	}
}

// tables lists the tables of the public schema, sorted.
// emptyDB returns a fresh database with no schema, closed at the end of the
// test, and a goose provider over the embedded migrations for it.
func emptyDB(t *testing.T) (*sql.DB, *goose.Provider) {
	t.Helper()
	db, err := sql.Open("pgx", dbtest.NewEmptyURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	p, err := migrations.NewProvider(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	return db, p
}

func tables(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return names
}
