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
	"net"
	"net/http"
	"time"

	"github.com/hibiken/asynq"
	"github.com/labstack/echo/v4"

	"github.com/rebound-hq/rebound/internal/api"
	"github.com/rebound-hq/rebound/internal/app"
	"github.com/rebound-hq/rebound/internal/config"
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

	rl := rateLimit(cfg)
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

// rateLimit is the per-API-key rate limit of cfg (API_RATE_PER_SECOND,
// API_RATE_BURST).
func rateLimit(cfg *config.Config) api.RateLimit {
	return api.RateLimit{PerSecond: cfg.APIRatePerSecond, Burst: cfg.APIRateBurst}
}
