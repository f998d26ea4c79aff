package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	gormlogger "gorm.io/gorm/logger"

	"github.com/rebound-hq/rebound/internal/logging"
	"github.com/rebound-hq/rebound/migrations"
)

// OpenOptions tunes Open. The zero value takes the defaults.
type OpenOptions struct {
	// MaxConns caps open connections (default 10); as many are kept idle.
	MaxConns int
	// SlowQuery is the duration from which a query is logged at warn level
	// (default 500ms). Every query is logged at debug level.
	SlowQuery time.Duration
}

// Open connects to the PostgreSQL database at dsn (a postgres:// URL or a
// keyword/value string, as pgx accepts), sets up the connection pool, and
// checks the connection with a ping bounded by ctx.
//
// Queries are logged through the logger found in each query's context
// (logging.FromContext), without their parameter values, so lead addresses do
// not reach the logs. Open does not check the schema version: see CheckSchema.
func Open(ctx context.Context, dsn string, opts OpenOptions) (*gorm.DB, error) {
	if opts.MaxConns <= 0 {
		opts.MaxConns = 10
	}
	if opts.SlowQuery <= 0 {
		opts.SlowQuery = 500 * time.Millisecond
	}
	// Scan records its SQL through GORM's package-level recorder, which has its
	// own parameter filter; keep values out of those log lines too.
	hideParams.Do(func() { gormlogger.RecorderParamsFilter = queryLogger{}.ParamsFilter })
	db, err := gorm.Open(postgres.Open(dsn), &gorm.Config{
		Logger:               queryLogger{slow: opts.SlowQuery},
		NowFunc:              func() time.Time { return time.Now().UTC() },
		DisableAutomaticPing: true, // pinged below, bounded by ctx
	})
	if err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	sqlDB.SetMaxOpenConns(opts.MaxConns)
	sqlDB.SetMaxIdleConns(opts.MaxConns)
	sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	sqlDB.SetConnMaxLifetime(30 * time.Minute)
	if err := sqlDB.PingContext(ctx); err != nil {
		_ = sqlDB.Close()
		return nil, fmt.Errorf("store: connect to PostgreSQL: %w", err)
	}
	return db, nil
}

// CheckSchema returns an error wrapping migrations.ErrOutdated when the
// database has not been migrated to the newest migration embedded in this
// binary; cmd/api and cmd/worker refuse to start then.
func CheckSchema(ctx context.Context, db *gorm.DB) error {
	sqlDB, err := db.DB()
	if err != nil {
		return fmt.Errorf("store: check schema: %w", err)
	}
	if err := migrations.Check(ctx, sqlDB); err != nil {
		return fmt.Errorf("store: check schema: %w", err)
	}
	return nil
}

var hideParams sync.Once

// queryLogger is GORM's logger, writing to the slog logger of the context.
type queryLogger struct {
	slow time.Duration
}

var _ gormlogger.Interface = queryLogger{}

// LogMode is part of gormlogger.Interface; levels come from the slog handler.
func (l queryLogger) LogMode(gormlogger.LogLevel) gormlogger.Interface { return l }

func (queryLogger) Info(ctx context.Context, msg string, args ...any) {
	logging.FromContext(ctx).InfoContext(ctx, "store: "+fmt.Sprintf(msg, args...))
}

func (queryLogger) Warn(ctx context.Context, msg string, args ...any) {
	logging.FromContext(ctx).WarnContext(ctx, "store: "+fmt.Sprintf(msg, args...))
}

func (queryLogger) Error(ctx context.Context, msg string, args ...any) {
	logging.FromContext(ctx).ErrorContext(ctx, "store: "+fmt.Sprintf(msg, args...))
}

// Trace logs one finished query: failures (except "record not found", which
// callers turn into ErrNotFound) at error level, slow ones at warn level, the
// rest at debug level.
func (l queryLogger) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), err error) {
	log := logging.FromContext(ctx)
	elapsed := time.Since(begin)
	level := slog.LevelDebug
	switch {
	case err != nil && !errors.Is(err, gorm.ErrRecordNotFound):
		level = slog.LevelError
	case elapsed >= l.slow:
		level = slog.LevelWarn
	}
	if !log.Enabled(ctx, level) {
		return
	}
	sql, rows := fc()
	attrs := []slog.Attr{
		slog.String("sql", sql),
		slog.Int64("rows", rows),
		slog.Duration("elapsed", elapsed),
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	log.LogAttrs(ctx, level, "store: query", attrs...)
}

// ParamsFilter keeps parameter values out of logged SQL (GORM calls it when
// the logger implements it).
func (queryLogger) ParamsFilter(_ context.Context, sql string, _ ...any) (string, []any) {
	return sql, nil
}
