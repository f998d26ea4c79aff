package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/api"
	"github.com/rebound-hq/rebound/internal/config"
	"github.com/rebound-hq/rebound/internal/dbtest"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestRunServesAndShutsDown starts the real server, waits for /readyz, then
// cancels its context (as SIGTERM does) and expects a clean return.
func TestRunServesAndShutsDown(t *testing.T) {
	addr := freeAddr(t)
	t.Setenv("DATABASE_URL", dbtest.NewURL(t))
	t.Setenv("REDIS_URL", dbtest.RedisURL(t))
	t.Setenv("API_ADDR", addr)
	t.Setenv("LOG_LEVEL", "warn")
	t.Setenv("OPERATOR_TOKEN", "operator-token-of-this-test")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()

	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-done:
			t.Fatalf("run returned early: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("server not ready: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// The whole API is wired in: operator route, a key route, the queue
	// metrics of the real Redis.
	req, _ := http.NewRequest("POST", "http://"+addr+"/v1/workspaces", strings.NewReader(`{"name":"x"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer operator-token-of-this-test")
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("POST /v1/workspaces with the operator token = %v %v", res, err)
	}
	res.Body.Close()
	res, err = http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), "rebound_queue_inspector_up 1") {
		t.Errorf("/metrics lacks the queue inspector gauge: %.500s", body)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run after cancel = %v, want nil", err)
		}
	case <-time.After(25 * time.Second):
		t.Fatal("run did not return after cancel")
	}
	if _, err := http.Get("http://" + addr + "/healthz"); err == nil {
		t.Error("server still answers after shutdown")
	}
}

func TestRunRefusesOutdatedSchema(t *testing.T) {
	t.Setenv("DATABASE_URL", dbtest.NewEmptyURL(t))
	t.Setenv("REDIS_URL", dbtest.RedisURL(t))
	t.Setenv("API_ADDR", freeAddr(t))
	t.Setenv("LOG_LEVEL", "error")
	err := run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "outdated") {
		t.Errorf("run on an unmigrated database = %v, want an outdated-schema error", err)
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	t.Setenv("API_ADDR", "no-port")
	err := run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "API_ADDR") {
		t.Errorf("run with a bad API_ADDR = %v", err)
	}
}

func TestRateLimit(t *testing.T) {
	load := func(vars map[string]string) (api.RateLimit, error) {
		cfg, err := config.LoadFrom(vars)
		if err != nil {
			return api.RateLimit{}, err
		}
		return rateLimit(cfg), nil
	}
	rl, err := load(nil)
	if err != nil || rl != api.DefaultRateLimit {
		t.Fatalf("defaults = %+v %v", rl, err)
	}
	rl, err = load(map[string]string{"API_RATE_PER_SECOND": "2.5", "API_RATE_BURST": "7"})
	if err != nil || rl.PerSecond != 2.5 || rl.Burst != 7 {
		t.Fatalf("set = %+v %v", rl, err)
	}
	for _, bad := range []map[string]string{{"API_RATE_PER_SECOND": "-1"}, {"API_RATE_PER_SECOND": "fast"}, {"API_RATE_BURST": "0"}} {
		if _, err := load(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
