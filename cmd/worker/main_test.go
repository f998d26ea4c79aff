package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/dbtest"
)

func testRedisURL(t *testing.T) string {
	t.Helper()
	if u := os.Getenv("REBOUND_TEST_REDIS_URL"); u != "" {
		return u
	}
	if u := os.Getenv("REDIS_URL"); u != "" {
		return u
	}
	if testing.Short() {
		t.Skip("REBOUND_TEST_REDIS_URL not set; skipped in -short mode")
	}
	t.Fatal("neither REBOUND_TEST_REDIS_URL nor REDIS_URL is set: run make test (starts Redis)")
	return ""
}

// TestRunUntilCancelled starts the real worker and stops it as SIGTERM does.
func TestRunUntilCancelled(t *testing.T) {
	t.Setenv("DATABASE_URL", dbtest.NewURL(t))
	t.Setenv("REDIS_URL", testRedisURL(t))
	t.Setenv("LOG_LEVEL", "warn")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	select {
	case err := <-done:
		t.Fatalf("run returned before cancel: %v", err)
	case <-time.After(time.Second):
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run after cancel = %v, want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not return after cancel")
	}
}

func TestRunRefusesOutdatedSchema(t *testing.T) {
	t.Setenv("DATABASE_URL", dbtest.NewEmptyURL(t))
	t.Setenv("REDIS_URL", testRedisURL(t))
	t.Setenv("LOG_LEVEL", "error")
	if err := run(context.Background()); err == nil || !strings.Contains(err.Error(), "outdated") {
		t.Errorf("run on an unmigrated database = %v, want an outdated-schema error", err)
	}
}

func TestRunFailsWithoutRedis(t *testing.T) {
	t.Setenv("DATABASE_URL", dbtest.NewURL(t))
	t.Setenv("REDIS_URL", "redis://127.0.0.1:1/0")
	t.Setenv("LOG_LEVEL", "error")
	if err := run(context.Background()); err == nil || !strings.Contains(err.Error(), "Redis") {
		t.Errorf("run without Redis = %v", err)
	}
}
