package store_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/dbtest"
	"github.com/rebound-hq/rebound/internal/logging"
	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/migrations"
)

func TestOpenAndCheckSchema(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, dbtest.NewURL(t), store.OpenOptions{MaxConns: 3})
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, _ := db.DB()
	defer sqlDB.Close()
	if got := sqlDB.Stats().MaxOpenConnections; got != 3 {
		t.Errorf("MaxOpenConnections = %d, want 3", got)
	}
	if err := store.CheckSchema(ctx, db); err != nil {
		t.Errorf("CheckSchema on a migrated database: %v", err)
	}

	empty, err := store.Open(ctx, dbtest.NewEmptyURL(t), store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	emptyDB, _ := empty.DB()
	defer emptyDB.Close()
	err = store.CheckSchema(ctx, empty)
	if !errors.Is(err, migrations.ErrOutdated) || !strings.Contains(err.Error(), "migrate up") {
		t.Errorf("CheckSchema on an empty database = %v, want ErrOutdated telling to migrate", err)
	}
}

func TestOpenUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Port 1 on loopback refuses connections.
	_, err := store.Open(ctx, "postgres://u:p@127.0.0.1:1/x?sslmode=disable&connect_timeout=2", store.OpenOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), "store: connect to PostgreSQL") {
		t.Errorf("Open(unreachable) = %v", err)
	}
}

func TestQueryLogUsesContextLoggerWithoutParameters(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})).With("request_id", "req-42")
	ctx := logging.WithContext(context.Background(), log)
	db, err := store.Open(ctx, dbtest.NewURL(t), store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, _ := db.DB()
	defer sqlDB.Close()
	var n int
	if err := db.WithContext(ctx).Raw("SELECT length(?)", "lead@example.com").Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, `"request_id":"req-42"`) || !strings.Contains(out, "SELECT length(") {
		t.Errorf("query not logged through the context logger: %s", out)
	}
	if strings.Contains(out, "lead@example.com") {
		t.Errorf("query log shows a parameter value: %s", out)
	}
	buf.Reset()
	if err := db.WithContext(ctx).Exec("SELECT * FROM no_such_table").Error; err == nil {
		t.Fatal("query on a missing table succeeded")
	}
	if !strings.Contains(buf.String(), `"level":"ERROR"`) {
		t.Errorf("failed query not logged at error level: %s", buf.String())
	}
}
