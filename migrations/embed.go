// Package migrations holds Rebound's PostgreSQL schema as goose SQL migrations
// (NNNNN_name.sql, see https://pressly.github.io/goose/) embedded in every binary,
// and the helpers that apply them and report the schema version.
//
// Version ranges by area: 00001-00019 tracking and the base schema, 00020-00029
// the REST API, 00030-00039 mailbox sync, 00040-00049 reports, 00050-00059
// scaling (partitions, retention). Every migration has a working
// "-- +goose Down" section: tests apply all of them, roll back to zero and apply
// them again.
package migrations

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// FS holds the embedded migration files.
//
//go:embed *.sql
var FS embed.FS

// NewProvider returns a goose provider over the embedded migrations for the
// PostgreSQL database db. Runs take a PostgreSQL advisory lock, so concurrent
// migrators (several replicas starting at once) apply each migration once.
// logger receives goose's progress lines; nil discards them.
//
// Migrations are numbered in ranges by area, so a branch can land a lower
// number after a higher one was applied; such a missing migration is applied
// by the next `up` instead of stopping it (goose's allow-out-of-order mode).
func NewProvider(db *sql.DB, logger *slog.Logger) (*goose.Provider, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return nil, fmt.Errorf("migrations: session locker: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, FS,
		goose.WithSessionLocker(locker),
		goose.WithSlog(logger),
		goose.WithDisableGlobalRegistry(true),
		goose.WithAllowOutofOrder(true),
	)
	if err != nil {
		return nil, fmt.Errorf("migrations: new provider: %w", err)
	}
	return p, nil
}

// Latest returns the highest migration version embedded in this binary.
func Latest() (int64, error) {
	names, err := fs.Glob(FS, "*.sql")
	if err != nil {
		return 0, fmt.Errorf("migrations: list embedded migrations: %w", err)
	}
	var latest int64
	for _, name := range names {
		v, err := goose.NumericComponent(name)
		if err != nil {
			return 0, fmt.Errorf("migrations: %s: %w", name, err)
		}
		latest = max(latest, v)
	}
	return latest, nil
}

// ErrOutdated reports that the database schema lacks an embedded migration;
// run `rebound migrate up`.
var ErrOutdated = errors.New("migrations: database schema is outdated")

// Check reports whether the database lacks any embedded migration: a version
// above the database's, or a lower one skipped because it landed later. It
// returns an error wrapping ErrOutdated, naming the database's version and
// the newest embedded one, when a migration is pending (or the database was
// never migrated); a database ahead of this binary (a newer release migrated
// it) is accepted. Check only reads.
func Check(ctx context.Context, db *sql.DB) error {
	latest, err := Latest()
	if err != nil {
		return err
	}
	var table sql.NullString
	if err := db.QueryRowContext(ctx, "SELECT to_regclass($1)::text", goose.DefaultTablename).Scan(&table); err != nil {
		return fmt.Errorf("migrations: read database version: %w", err)
	}
	if !table.Valid {
		return fmt.Errorf("%w: database never migrated, this binary needs version %d (run `rebound migrate up`)", ErrOutdated, latest)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, FS,
		goose.WithDisableGlobalRegistry(true), goose.WithAllowOutofOrder(true))
	if err != nil {
		return fmt.Errorf("migrations: new provider: %w", err)
	}
	pending, err := p.HasPending(ctx)
	if err != nil {
		return fmt.Errorf("migrations: look for pending migrations: %w", err)
	}
	if pending {
		current, err := p.GetDBVersion(ctx)
		if err != nil {
			return fmt.Errorf("migrations: read database version: %w", err)
		}
		return fmt.Errorf("%w: database at version %d with migrations pending, this binary has up to %d (run `rebound migrate up`)", ErrOutdated, current, latest)
	}
	return nil
}
