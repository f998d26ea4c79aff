// Command api serves Rebound's REST API (Echo) on API_ADDR, with /healthz and
// /readyz for the orchestrator, JSON logs on stdout, and a graceful shutdown
// on SIGTERM or SIGINT. It refuses to start on an outdated schema: run
// `rebound migrate up` first. Settings: see internal/config.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
	"github.com/labstack/echo/v4"

	"github.com/rebound-hq/rebound/internal/api"
	"github.com/rebound-hq/rebound/internal/app"
	"github.com/rebound-hq/rebound/internal/metrics"
	"github.com/rebound-hq/rebound/internal/tasks"
)

func main() { app.Main("api", run) }

// run starts the server and returns when ctx is cancelled (after a graceful
// shutdown) or when the server cannot start or fails.
func run(ctx context.Context) error {
	b, err := app.Start(ctx, "api")
	if err != nil {
		return err
	}
	defer b.Close()
	cfg, log, db := b.Config, b.Log, b.DB
	rdb, err := tasks.RedisClient(b.Redis)
	if err != nil {
		return err
	}
	defer rdb.Close()
	queue := asynq.NewClient(b.Redis)
	defer queue.Close()
	inspector := asynq.NewInspector(b.Redis)
	defer inspector.Close()
	if err := metrics.WatchQueues(inspector); err != nil {
		return err
	}

	rl, err := rateLimitFromEnv(os.LookupEnv)
	if err != nil {
		return err
	}
	log.Info("api: rate limit per API key", "per_second", rl.PerSecond, "burst", rl.Burst)
	deps := api.Deps{
		DB:            db,
		Log:           log,
		OperatorToken: cfg.OperatorToken,
		RateLimit:     &rl,
		Mailboxes:     b.Mailboxes(),
		Queue:         queue,
		Tracking:      b.Tracking(),
	}
	e := api.New(log, []api.ReadyCheck{api.PostgresCheck(db), api.RedisCheck(rdb)},
		func(e *echo.Echo) { api.Register(e, deps) })
	srv := &http.Server{
		Handler:           e,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", cfg.APIAddr)
	if err != nil {
		return fmt.Errorf("listen on API_ADDR %s: %w", cfg.APIAddr, err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	log.Info("api: listening", "addr", ln.Addr().String())

	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("api: shutting down", "timeout", cfg.ShutdownTimeout)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	log.Info("api: stopped")
	return nil
}

// rateLimitFromEnv reads the per-API-key rate limit: API_RATE_PER_SECOND
// (requests a second sustained, 0 turns limiting off) and API_RATE_BURST
// (requests at once). Unset variables keep api.DefaultRateLimit.
func rateLimitFromEnv(lookup func(string) (string, bool)) (api.RateLimit, error) {
	rl := api.DefaultRateLimit
	if s, ok := lookup("API_RATE_PER_SECOND"); ok && s != "" {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
			return rl, fmt.Errorf("API_RATE_PER_SECOND=%q: want a number of requests a second, 0 or more", s)
		}
		rl.PerSecond = f
	}
	if s, ok := lookup("API_RATE_BURST"); ok && s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 1_000_000 {
			return rl, fmt.Errorf("API_RATE_BURST=%q: want a whole number from 1 to 1000000", s)
		}
		rl.Burst = n
	}
	return rl, nil
}
