package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/dbtest"
)

// freeAddr returns a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestRunUntilCancelled starts the real worker, reads its probes and
// metrics, and stops it as SIGTERM does.
func TestRunUntilCancelled(t *testing.T) {
	addr := freeAddr(t)
	t.Setenv("DATABASE_URL", dbtest.NewURL(t))
	t.Setenv("REDIS_URL", dbtest.RedisURL(t))
	t.Setenv("LOG_LEVEL", "warn")
	t.Setenv("WORKER_HTTP_ADDR", addr)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	select {
	case err := <-done:
		t.Fatalf("run returned before cancel: %v", err)
	case <-time.After(time.Second):
	}
	base := "http://" + addr
	if code, body := get(t, base+"/healthz"); code != 200 || !strings.Contains(body, `"ok"`) {
		t.Errorf("/healthz = %d %s", code, body)
	}
	if code, body := get(t, base+"/readyz"); code != 200 {
		t.Errorf("/readyz = %d %s", code, body)
	}
	if code, body := get(t, base+"/metrics"); code != 200 || !strings.Contains(body, "go_goroutines") {
		t.Errorf("/metrics = %d, %d bytes", code, len(body))
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
	t.Setenv("REDIS_URL", dbtest.RedisURL(t))
	t.Setenv("WORKER_HTTP_ADDR", "127.0.0.1:0")
	t.Setenv("LOG_LEVEL", "error")
	if err := run(context.Background()); err == nil || !strings.Contains(err.Error(), "outdated") {
		t.Errorf("run on an unmigrated database = %v, want an outdated-schema error", err)
	}
}

func TestRunFailsWithoutRedis(t *testing.T) {
	t.Setenv("DATABASE_URL", dbtest.NewURL(t))
	t.Setenv("REDIS_URL", "redis://127.0.0.1:1/0")
	t.Setenv("WORKER_HTTP_ADDR", "127.0.0.1:0")
	t.Setenv("LOG_LEVEL", "error")
	if err := run(context.Background()); err == nil || !strings.Contains(err.Error(), "Redis") {
		t.Errorf("run without Redis = %v", err)
	}
}
