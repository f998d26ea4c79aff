// Package app holds the start-up that Rebound's long-running commands share
// (cmd/api, cmd/worker, and `rebound reprocess` in part): signal handling,
// the configuration loaded once, JSON logging, the PostgreSQL pool checked
// against the schema version, the Redis connection setting, and the
// mailbox and tracking services built from the configuration.
package app

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/hibiken/asynq"
	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/config"
	"github.com/rebound-hq/rebound/internal/logging"
	"github.com/rebound-hq/rebound/internal/mailbox"
	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/internal/tasks"
	"github.com/rebound-hq/rebound/internal/tracking"
)

// Main runs run with a context that SIGINT or SIGTERM cancels; when run
// fails it prints the error after "name:" on stderr and exits with status 1.
func Main(name string, run func(context.Context) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// Base is what a long-running command has once Start returns: the
// configuration, the logger, a PostgreSQL pool on a current schema and the
// Redis connection setting. Close releases the pool.
type Base struct {
	Config *config.Config
	Log    *slog.Logger
	DB     *gorm.DB
	// SQL is DB's connection pool.
	SQL *sql.DB
	// Redis is the one Redis setting of the worker and the API: a single
	// server (REDIS_URL), Sentinel or Cluster.
	Redis asynq.RedisConnOpt
}

// Start loads the configuration (config.Load), sets up logging on stdout
// (also as slog's default), logs the configuration under name with a warning
// when SECRET_KEYS is the development key, opens PostgreSQL with
// DATABASE_MAX_CONNS connections and refuses a schema that is not current
// (OpenDB), and parses the Redis setting. On error nothing is left open.
func Start(ctx context.Context, name string) (*Base, error) {
	cfg, err := config.Load()
	if err != nil {
		return nil, err
	}
	log, err := logging.New(os.Stdout, cfg.LogLevel, cfg.LogFormat)
	if err != nil {
		return nil, err
	}
	slog.SetDefault(log)
	log.Info(name+": starting", "config", cfg)
	if cfg.UsesDevSecretKey() {
		log.Warn(name + ": SECRET_KEYS is the built-in development key; set your own keys outside development")
	}
	db, sqlDB, err := OpenDB(ctx, cfg.DatabaseURL, cfg.DatabaseMaxConns)
	if err != nil {
		return nil, err
	}
	redisOpt, err := tasks.RedisConnOpt(cfg)
	if err != nil {
		_ = sqlDB.Close()
		return nil, err
	}
	return &Base{Config: cfg, Log: log, DB: db, SQL: sqlDB, Redis: redisOpt}, nil
}

// Close closes the PostgreSQL pool.
func (b *Base) Close() error { return b.SQL.Close() }

// Mailboxes returns the mailbox service configured by b.Config.
func (b *Base) Mailboxes() *mailbox.Service { return NewMailboxes(b.Config, b.DB) }

// Tracking returns the tracking service configured by b.Config.
func (b *Base) Tracking() *tracking.Service { return NewTracking(b.Config, b.DB) }

// OpenDB opens the PostgreSQL database at url with at most maxConns
// connections (store.Open; 0 takes its default) and returns an error
// wrapping migrations.ErrOutdated when its schema is not the newest this
// binary embeds (store.CheckSchema). The caller closes the returned pool;
// on error nothing is left open.
func OpenDB(ctx context.Context, url string, maxConns int) (*gorm.DB, *sql.DB, error) {
	db, err := store.Open(ctx, url, store.OpenOptions{MaxConns: maxConns})
	if err != nil {
		return nil, nil, err
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, nil, fmt.Errorf("app: %w", err)
	}
	if err := store.CheckSchema(ctx, db); err != nil {
		_ = sqlDB.Close()
		return nil, nil, err
	}
	return db, sqlDB, nil
}

// NewMailboxes returns the mailbox service over db with the keyring, the
// IMAP host policy and timeouts, and the default sync interval of cfg.
func NewMailboxes(cfg *config.Config, db *gorm.DB) *mailbox.Service {
	return &mailbox.Service{
		DB:              db,
		Keyring:         cfg.Keyring,
		Policy:          &mailbox.Policy{AllowPrivateHosts: cfg.AllowPrivateHosts, IOTimeout: cfg.IMAPTimeout, DialTimeout: cfg.IMAPTimeout},
		DefaultInterval: cfg.SyncInterval,
	}
}

// NewTracking returns the tracking service over db that matches bounces by
// the campaign and lead headers of cfg.
func NewTracking(cfg *config.Config, db *gorm.DB) *tracking.Service {
	return tracking.New(db, tracking.Options{
		CampaignHeader: cfg.MatchHeaderCampaign,
		LeadHeader:     cfg.MatchHeaderLead,
	})
}
