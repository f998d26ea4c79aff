package main

import (
	"bytes"
	"context"
	"database/sql"
	"net/url"
	"strings"
	"testing"

	"github.com/rebound-hq/rebound/internal/dbtest"
	"github.com/rebound-hq/rebound/migrations"
)

// TestFreshDemoDatabase checks that the demo's database is created beside
// DATABASE_URL's, fully migrated, and created afresh on the next run.
func TestFreshDemoDatabase(t *testing.T) {
	base := dbtest.NewEmptyURL(t)
	ctx := context.Background()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/") + "_demo"
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	t.Cleanup(func() { admin.Exec(`DROP DATABASE IF EXISTS "` + name + `"`) })

	latest, err := migrations.Latest()
	if err != nil {
		t.Fatal(err)
	}
	for run := 1; run <= 2; run++ {
		demoURL, note, err := freshDemoDatabase(ctx, base)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if !strings.Contains(demoURL, "/"+name+"?") || !strings.Contains(note, name) {
			t.Fatalf("run %d: database %s (%s), want %s", run, demoURL, note, name)
		}
		db, err := sql.Open("pgx", demoURL)
		if err != nil {
			t.Fatal(err)
		}
		var version int64
		var workspaces int
		err = db.QueryRowContext(ctx, `SELECT max(version_id) FROM goose_db_version WHERE is_applied`).Scan(&version)
		if err == nil {
			err = db.QueryRowContext(ctx, `SELECT count(*) FROM workspaces`).Scan(&workspaces)
		}
		if err == nil && run == 1 {
			_, err = db.ExecContext(ctx, `INSERT INTO workspaces (name) VALUES ('left from the last run')`)
		}
		db.Close()
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if version != latest || workspaces != 0 {
			t.Errorf("run %d: schema version %d (want %d), %d workspaces (want a fresh database)", run, version, latest, workspaces)
		}
	}
}

func TestDemoCommandArguments(t *testing.T) {
	for _, args := range [][]string{{"-nope"}, {"extra"}} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), append([]string{"demo"}, args...), nil, &out, &errOut); code != 2 {
			t.Errorf("rebound demo %q: exit %d, want 2 (%s)", args, code, errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"demo", "-h"}, nil, &out, &errOut); code != 0 || !strings.Contains(errOut.String(), "usage: rebound demo") {
		t.Errorf("rebound demo -h: exit %d, output %q", code, errOut.String())
	}
}
