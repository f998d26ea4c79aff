package store_test

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/rebound-hq/rebound/internal/dbtest"
	"github.com/rebound-hq/rebound/internal/store"
)

// TestQueries prepares every named query against the migrated schema, so a
// query that no longer fits the schema fails here, not on first use.
func TestQueries(t *testing.T) {
	db := dbtest.New(t)
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	names := store.QueryNames()
	if len(names) < 30 {
		t.Fatalf("only %d named queries loaded", len(names))
	}
	for _, name := range names {
		stmt, err := sqlDB.PrepareContext(ctx, store.Query(name))
		if err != nil {
			t.Errorf("query %s: %v", name, err)
			continue
		}
		_ = stmt.Close()
	}
}

func TestQueryUnknownPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Query of an unknown name did not panic")
		}
	}()
	store.Query("no-such-query")
}

func TestLoadQueriesRejectsDuplicates(t *testing.T) {
	fsys := fstest.MapFS{
		"queries/a.sql": {Data: []byte("-- name: x\nSELECT 1;\n-- name: x\nSELECT 2;\n")},
	}
	if _, err := store.LoadQueriesForTest(fsys); err == nil {
		t.Fatal("duplicate query names were accepted")
	}
	fsys = fstest.MapFS{
		"queries/a.sql": {Data: []byte("-- name: x\n\n-- name: y\nSELECT 2;\n")},
	}
	if _, err := store.LoadQueriesForTest(fsys); err == nil {
		t.Fatal("an empty query was accepted")
	}
	fsys = fstest.MapFS{
		"queries/a.sql": {Data: []byte("-- comment\n-- name: x\nSELECT 1\nFROM t;\n")},
	}
	m, err := store.LoadQueriesForTest(fsys)
	if err != nil || m["x"] != "SELECT 1\nFROM t;" {
		t.Fatalf("got %q, %v", m["x"], err)
	}
}

func TestStringArray(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{`{}`, []string{}},
		{`{INBOX}`, []string{"INBOX"}},
		{`{INBOX,"Sent Items","a\"b","c\\d",NULL}`, []string{"INBOX", "Sent Items", `a"b`, `c\d`, ""}},
	}
	for _, c := range cases {
		var a store.StringArray
		if err := a.Scan(c.in); err != nil {
			t.Fatalf("Scan(%q): %v", c.in, err)
		}
		if len(a) != len(c.want) {
			t.Fatalf("Scan(%q) = %q, want %q", c.in, a, c.want)
		}
		for i := range a {
			if a[i] != c.want[i] {
				t.Fatalf("Scan(%q) = %q, want %q", c.in, a, c.want)
			}
		}
	}
	if err := new(store.StringArray).Scan(`{"open`); err == nil {
		t.Fatal("malformed array accepted")
	}
	// Round trip through PostgreSQL.
	db := dbtest.New(t)
	in := store.StringArray{"INBOX", "Sent Items", `q"uote`, `back\slash`, "Ünïcode"}
	var out store.StringArray
	if err := db.Raw("SELECT ?::text[]", in).Row().Scan(&out); err != nil {
		t.Fatal(err)
	}
	if len(out) != len(in) {
		t.Fatalf("round trip %q -> %q", in, out)
	}
	for i := range in {
		if in[i] != out[i] {
			t.Fatalf("round trip %q -> %q", in, out)
		}
	}
}
