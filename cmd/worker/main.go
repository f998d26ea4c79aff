// Command worker runs Rebound's background tasks: an asynq server and
// scheduler on REDIS_URL (mailbox syncs, the every-minute scheduling of due
// mailboxes, housekeeping), with JSON logs on stdout and a graceful shutdown on
// SIGTERM or SIGINT (tasks in flight get SHUTDOWN_TIMEOUT to finish). It
// refuses to start on an outdated schema: run `rebound migrate up` first.
// Settings: see internal/config.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/hibiken/asynq"

	"github.com/rebound-hq/rebound/internal/config"
	"github.com/rebound-hq/rebound/internal/logging"
	"github.com/rebound-hq/rebound/internal/mailbox"
	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/internal/tasks"
	"github.com/rebound-hq/rebound/internal/tracking"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}

// run processes tasks until ctx is cancelled, then shuts down gracefully.
func run(ctx context.Context) error {
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	log, err := logging.New(os.Stdout, cfg.LogLevel, cfg.LogFormat)
	if err != nil {
		return err
	}
	slog.SetDefault(log)
	log.Info("worker: starting", "config", cfg)
	if cfg.UsesDevSecretKey() {
		log.Warn("worker: SECRET_KEYS is the built-in development key; set your own keys outside development")
	}

	db, err := store.Open(ctx, cfg.DatabaseURL, store.OpenOptions{MaxConns: cfg.DatabaseMaxConns})
	if err != nil {
		return err
	}
	sqlDB, err := db.DB()
	if err != nil {
		return err
	}
	defer sqlDB.Close()
	if err := store.CheckSchema(ctx, db); err != nil {
		return err
	}

	w, err := tasks.NewWorker(tasks.Options{
		RedisURL:        cfg.RedisURL,
		Concurrency:     cfg.WorkerConcurrency,
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
	mailboxes := &mailbox.Service{
		DB:              db,
		Keyring:         cfg.Keyring,
		Policy:          &mailbox.Policy{AllowPrivateHosts: cfg.AllowPrivateHosts, IOTimeout: cfg.IMAPTimeout, DialTimeout: cfg.IMAPTimeout},
		DefaultInterval: cfg.SyncInterval,
	}
	syncer := &tasks.Syncer{
		DB:      db,
		Mailbox: mailboxes,
		Tracking: tracking.New(db, tracking.Options{
			CampaignHeader: cfg.MatchHeaderCampaign,
			LeadHeader:     cfg.MatchHeaderLead,
		}),
		Logger: log,
	}
	if err := tasks.RegisterMailboxSync(w, syncer, &tasks.Scheduler{DB: db, Queue: client, Logger: log}); err != nil {
		return err
	}
	return w.Run(ctx)
}
