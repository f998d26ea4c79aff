// Command worker runs Rebound's background tasks: an asynq server and
// scheduler on Redis (REDIS_URL, or Sentinel / Cluster settings) serving the
// queues syncs, reprocessing and housekeeping (weights 6:3:1, or strict
// priority with WORKER_STRICT_PRIORITY) with WORKER_CONCURRENCY tasks at
// once: mailbox syncs, the every-minute scheduling of due mailboxes,
// reprocessing runs, and hourly housekeeping (archived tasks, month
// partitions ahead, raw message bytes past RAW_RETENTION). It serves /healthz, /readyz
// and /metrics on WORKER_HTTP_ADDR, logs JSON on stdout, and shuts down
// gracefully on SIGTERM or SIGINT: /readyz turns 503, tasks in flight get
// SHUTDOWN_TIMEOUT to finish, and a sync still running then stops with its
// committed batches kept and the rest left for the next sync. Any number of
// workers can run against one PostgreSQL and one Redis. It refuses to start
// on an outdated schema: run `rebound migrate up` first. Settings: see
// internal/config.
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

	"github.com/rebound-hq/rebound/internal/app"
	"github.com/rebound-hq/rebound/internal/tasks"
)

func main() { app.Main("worker", run) }

// run processes tasks until ctx is cancelled, then shuts down gracefully.
func run(ctx context.Context) error {
	b, err := app.Start(ctx, "worker")
	if err != nil {
		return err
	}
	defer b.Close()
	cfg, log, db := b.Config, b.Log, b.DB
	w, err := tasks.NewWorker(tasks.Options{
		Redis:           b.Redis,
		Concurrency:     cfg.WorkerConcurrency,
		StrictPriority:  cfg.WorkerStrictPriority,
		ShutdownTimeout: cfg.ShutdownTimeout,
		Log:             log,
	})
	if err != nil {
		return err
	}
	insp, err := tasks.RegisterHousekeeping(w, tasks.DefaultArchiveRetention)
	if err != nil {
		return err
	}
	defer insp.Close()

	client := asynq.NewClient(w.RedisConnOpt())
	defer client.Close()
	syncer := &tasks.Syncer{
		DB:       db,
		Mailbox:  b.Mailboxes(),
		Tracking: b.Tracking(),
		Logger:   log,
	}
	if err := tasks.RegisterMailboxSync(w, syncer, &tasks.Scheduler{DB: db, Queue: client, Logger: log}); err != nil {
		return err
	}
	w.Handle(tasks.TypeReprocess, &tasks.Reprocessor{Tracking: syncer.Tracking, RawRetention: cfg.RawRetention})
	if err := tasks.RegisterDatabaseHousekeeping(w, &tasks.DatabaseHousekeeping{DB: db, RawRetention: cfg.RawRetention}); err != nil {
		return err
	}

	rc, err := tasks.RedisClient(b.Redis)
	if err != nil {
		return err
	}
	defer rc.Close()
	probes := &tasks.Probes{DB: b.SQL, Redis: rc}
	stopHTTP, err := serveHTTP(cfg.WorkerHTTPAddr, probes.Handler(), log)
	if err != nil {
		return err
	}
	defer stopHTTP()
	go func() {
		<-ctx.Done()
		probes.Stopping()
	}()
	return w.Run(ctx)
}

// serveHTTP listens on addr and serves h until the returned stop is called.
func serveHTTP(addr string, h http.Handler, log *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("worker: WORKER_HTTP_ADDR: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("worker: HTTP server", "err", err)
		}
	}()
	log.Info("worker: serving /healthz, /readyz and /metrics", "addr", ln.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}
