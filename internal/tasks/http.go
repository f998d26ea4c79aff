package tasks

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rebound-hq/rebound/internal/metrics"
)

// Pinger is what the readiness probe asks of PostgreSQL (a *sql.DB).
type Pinger interface {
	PingContext(ctx context.Context) error
}

// Probes serves the worker's HTTP endpoints, for Kubernetes probes and
// Prometheus (WORKER_HTTP_ADDR, default 127.0.0.1:8081):
//
//	GET /healthz  200 while the process serves; it checks nothing else, so
//	              an outage of PostgreSQL or Redis does not get every worker
//	              restarted (liveness).
//	GET /readyz   200 when PostgreSQL and Redis each answer a ping within
//	              ReadyTimeout; 503 with the failing checks otherwise, and
//	              from the moment shutdown begins (readiness).
//	GET /metrics  this process's Prometheus registry: mailbox syncs by
//	              outcome, events recorded, Go runtime (metrics package).
//
// Bodies are JSON: {"status":"ok"} or {"status":"unavailable","checks":{...}}.
type Probes struct {
	DB    Pinger
	Redis redis.UniversalClient
	// ReadyTimeout bounds each readiness check (default 2s).
	ReadyTimeout time.Duration

	stopping atomic.Bool
}

// Stopping makes /readyz answer 503 from now on (the process is shutting
// down).
func (p *Probes) Stopping() { p.stopping.Store(true) }

// Handler returns the mux serving /healthz, /readyz and /metrics.
func (p *Probes) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeProbe(w, http.StatusOK, nil)
	})
	mux.HandleFunc("GET /readyz", p.ready)
	mux.Handle("GET /metrics", metrics.Handler())
	return mux
}

func (p *Probes) ready(w http.ResponseWriter, r *http.Request) {
	if p.stopping.Load() {
		writeProbe(w, http.StatusServiceUnavailable, map[string]string{"worker": "shutting down"})
		return
	}
	timeout := p.ReadyTimeout
	if timeout <= 0 {
		timeout = 2 * time.Second
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	failed := map[string]string{}
	if err := p.DB.PingContext(ctx); err != nil {
		failed["postgres"] = err.Error()
	}
	if err := p.Redis.Ping(ctx).Err(); err != nil {
		failed["redis"] = err.Error()
	}
	if len(failed) > 0 {
		writeProbe(w, http.StatusServiceUnavailable, failed)
		return
	}
	writeProbe(w, http.StatusOK, nil)
}

func writeProbe(w http.ResponseWriter, status int, failed map[string]string) {
	body := map[string]any{"status": "ok"}
	if status != http.StatusOK {
		body = map[string]any{"status": "unavailable", "checks": failed}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
