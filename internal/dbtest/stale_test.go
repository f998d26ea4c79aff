package dbtest

import (
	"context"
	"fmt"
	"testing"
	"time"
)

func TestDropStaleRemovesOnlyOldTestDatabases(t *testing.T) {
	a := open(t)
	ctx := context.Background()
	old := fmt.Sprintf("%s%d_%s", testPrefix, time.Now().Add(-staleAfter-time.Hour).Unix(), randomHex(6))
	recent := fmt.Sprintf("%s%d_%s", testPrefix, time.Now().Unix(), randomHex(6))
	for _, name := range []string{old, recent} {
		if _, err := a.ExecContext(ctx, "CREATE DATABASE "+quote(name)+" TEMPLATE template0"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _, _ = a.Exec("DROP DATABASE IF EXISTS " + quote(name)) })
	}
	conn, err := a.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	dropStale(ctx, conn)
	exists := func(name string) bool {
		var ok bool
		if err := a.QueryRow("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if exists(old) {
		t.Errorf("stale database %s not dropped", old)
	}
	if !exists(recent) {
		t.Errorf("recent database %s dropped", recent)
	}
}
