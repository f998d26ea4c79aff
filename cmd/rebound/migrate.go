package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/pressly/goose/v3"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/rebound-hq/rebound/internal/config"
	"github.com/rebound-hq/rebound/migrations"
)

const migrateUsage = `usage: rebound migrate COMMAND
  up          apply every pending migration
  down        roll back the most recent migration (one step)
  down-to N   roll back every migration above version N
  reset       roll back every migration (down-to 0)
  status      list the migrations and whether each is applied
  version     print the database's schema version
The database is DATABASE_URL (default: the private one of make services-up).`

// runMigrate implements `rebound migrate`: goose over the migrations embedded
// in the binary (package migrations).
func runMigrate(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stderr, migrateUsage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	want := map[string]int{"up": 1, "down": 1, "down-to": 2, "reset": 1, "status": 1, "version": 1}
	if n, ok := want[args[0]]; !ok || len(args) != n {
		fmt.Fprintf(stderr, "rebound migrate: bad arguments %q\n%s\n", args, migrateUsage)
		return 2
	}
	var target int64
	if args[0] == "down-to" {
		v, err := strconv.ParseInt(args[1], 10, 64)
		if err != nil || v < 0 {
			fmt.Fprintf(stderr, "rebound migrate: down-to wants a version number >= 0, got %q\n", args[1])
			return 2
		}
		target = v
	}
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintf(stderr, "rebound migrate: %v\n", err)
		return 1
	}
	if err := migrate(ctx, cfg.DatabaseURL, args[0], target, stdout); err != nil {
		fmt.Fprintf(stderr, "rebound migrate: %v\n", err)
		return 1
	}
	return 0
}

func migrate(ctx context.Context, dsn, cmd string, target int64, stdout io.Writer) error {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	defer db.Close()
	if err := db.PingContext(ctx); err != nil {
		return fmt.Errorf("connect to PostgreSQL (is it running? make services-up): %w", err)
	}
	p, err := migrations.NewProvider(db, nil)
	if err != nil {
		return err
	}
	var results []*goose.MigrationResult
	switch cmd {
	case "up":
		results, err = p.Up(ctx)
	case "down":
		var r *goose.MigrationResult
		r, err = p.Down(ctx)
		if r != nil {
			results = append(results, r)
		}
		if errors.Is(err, goose.ErrNoNextVersion) {
			fmt.Fprintln(stdout, "nothing to roll back")
			return nil
		}
	case "down-to":
		results, err = p.DownTo(ctx, target)
	case "reset":
		results, err = p.DownTo(ctx, 0)
	case "status":
		return printStatus(ctx, p, stdout)
	case "version":
		v, err := p.GetDBVersion(ctx)
		if err != nil {
			return fmt.Errorf("read version: %w", err)
		}
		fmt.Fprintln(stdout, v)
		return nil
	}
	for _, r := range results {
		fmt.Fprintf(stdout, "%-4s %s (%s)\n", r.Direction, r.Source.Path, r.Duration.Round(1e6))
	}
	if err != nil {
		return err
	}
	v, err := p.GetDBVersion(ctx)
	if err != nil {
		return fmt.Errorf("read version: %w", err)
	}
	if len(results) == 0 {
		fmt.Fprintf(stdout, "nothing to do; schema version %d\n", v)
	} else {
		fmt.Fprintf(stdout, "schema version %d\n", v)
	}
	return nil
}

func printStatus(ctx context.Context, p *goose.Provider, stdout io.Writer) error {
	st, err := p.Status(ctx)
	if err != nil {
		return fmt.Errorf("status: %w", err)
	}
	for _, s := range st {
		applied := "pending"
		if s.State == goose.StateApplied {
			applied = "applied " + s.AppliedAt.UTC().Format("2006-01-02 15:04:05Z")
		}
		fmt.Fprintf(stdout, "%-32s %s\n", s.Source.Path, applied)
	}
	return nil
}
