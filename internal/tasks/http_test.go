package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/rebound-hq/rebound/internal/dbtest"
	"github.com/rebound-hq/rebound/internal/metrics"
)

type failingPinger struct{}

func (failingPinger) PingContext(context.Context) error { return errors.New("connection refused") }

func probe(t *testing.T, h http.Handler, path string) (int, map[string]any) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	var body map[string]any
	if path != "/metrics" {
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatalf("%s: body %q: %v", path, rec.Body.String(), err)
		}
	} else {
		body = map[string]any{"text": rec.Body.String()}
	}
	return rec.Code, body
}

func TestProbes(t *testing.T) {
	db := dbtest.New(t)
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	opt, err := redis.ParseURL(dbtest.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	rc := redis.NewClient(opt)
	defer rc.Close()

	p := &Probes{DB: sqlDB, Redis: rc}
	h := p.Handler()
	if code, body := probe(t, h, "/healthz"); code != 200 || body["status"] != "ok" {
		t.Errorf("/healthz = %d %v", code, body)
	}
	if code, body := probe(t, h, "/readyz"); code != 200 || body["status"] != "ok" {
		t.Errorf("/readyz = %d %v", code, body)
	}
	metrics.SyncFinished(metrics.SyncOK)
	if code, body := probe(t, h, "/metrics"); code != 200 || !contains(body["text"], `rebound_mailbox_syncs_total{outcome="ok"}`) {
		t.Errorf("/metrics = %d without the sync counter", code)
	}

	// PostgreSQL down, Redis unreachable: not ready, both named; still alive.
	dead := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	defer dead.Close()
	bad := (&Probes{DB: failingPinger{}, Redis: dead}).Handler()
	code, body := probe(t, bad, "/readyz")
	checks, _ := body["checks"].(map[string]any)
	if code != 503 || checks["postgres"] == nil || checks["redis"] == nil {
		t.Errorf("/readyz with both down = %d %v", code, body)
	}
	if code, _ := probe(t, bad, "/healthz"); code != 200 {
		t.Errorf("/healthz with dependencies down = %d, want 200", code)
	}

	p.Stopping()
	if code, body := probe(t, h, "/readyz"); code != 503 {
		t.Errorf("/readyz while stopping = %d %v", code, body)
	}
}

func contains(v any, sub string) bool {
	s, _ := v.(string)
	return strings.Contains(s, sub)
}
