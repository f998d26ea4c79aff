package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/rebound-hq/rebound/internal/config"
	"github.com/rebound-hq/rebound/internal/demo"
)

const demoUsage = `usage: rebound demo [-once] [-sync scheduler|trigger] [-mail DIR] [-limit N] [-ordinary N] [-delivered N]
Runs Rebound end to end on real bounce messages: starts the API and the
worker, an in-process IMAP server holding bounces mixed with ordinary mail,
sets up a workspace, campaign, leads and sent messages through the REST API,
lets the worker sync the mailbox through asynq, prints the campaign's bounce
report, a lead's timeline and curl commands, then serves until Ctrl-C.
PostgreSQL (DATABASE_URL) and Redis (REDIS_URL) must be running (` + "`make demo`" + `
starts them). The demo works in a database of its own beside DATABASE_URL's,
named after it with a _demo suffix (rebound_demo), dropped and created afresh
and migrated (as ` + "`rebound migrate up`" + `) on each run, and kept afterwards; in
Redis it claims one of the databases 8 to 15.`

// runDemo implements `rebound demo` (internal/demo).
func runDemo(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, demoUsage); fs.PrintDefaults() }
	once := fs.Bool("once", false, "exit after printing the report, stopping the API and worker")
	sync := fs.String("sync", string(demo.SyncScheduler), "scheduler: wait for the worker's minute tick; trigger: queue the sync with POST /v1/mailboxes/{id}/sync")
	mail := fs.String("mail", "", "folder of *.eml bounces (default ../shared/corpus/emails, else internal/dsn/testdata)")
	limit := fs.Int("limit", 0, "use at most N files of the folder (0: all)")
	ordinary := fs.Int("ordinary", 12, "ordinary messages mixed in")
	delivered := fs.Int("delivered", 4000, "further leads whose messages were delivered (the rates' denominator)")
	timeout := fs.Duration("sync-timeout", 3*time.Minute, "how long to wait for the sync")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rebound demo: unexpected arguments %q\n", fs.Args())
		return 2
	}
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintf(stderr, "rebound demo: %v\n", err)
		return 1
	}
	if *ordinary == 0 {
		*ordinary = -1 // Options: negative means none
	}
	if *delivered == 0 {
		*delivered = -1
	}
	t0 := time.Now()
	_, err = demo.Run(ctx, demo.Options{
		Prepare: func(ctx context.Context) (string, string, error) {
			return freshDemoDatabase(ctx, cfg.DatabaseURL)
		},
		RedisURL:    cfg.RedisURL,
		MailDir:     *mail,
		Limit:       *limit,
		Ordinary:    *ordinary,
		Delivered:   *delivered,
		Sync:        demo.SyncMode(*sync),
		SyncTimeout: *timeout,
		Once:        *once,
		Stdout:      stdout,
	})
	if err != nil {
		// "rebound demo: step "sync" failed: ..."
		fmt.Fprintf(stderr, "rebound %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "rebound demo: done in %.1fs\n", time.Since(t0).Seconds())
	return 0
}

// freshDemoDatabase drops and creates the demo's database on the server of
// base (named after base's database with a _demo suffix), applies the
// migrations to it as `rebound migrate up` does, and returns its URL and a
// line saying so. It fails when another session uses the database (another
// demo still running).
func freshDemoDatabase(ctx context.Context, base string) (string, string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", "", fmt.Errorf("demo: DATABASE_URL: %w", err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	if name == "" {
		name = "rebound"
	}
	name += "_demo"
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return "", "", fmt.Errorf("demo: open database: %w", err)
	}
	defer admin.Close()
	if err := admin.PingContext(ctx); err != nil {
		return "", "", fmt.Errorf("demo: connect to PostgreSQL (is it running? make services-up): %w", err)
	}
	quoted := `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+quoted); err != nil {
		return "", "", fmt.Errorf("demo: drop database %s (is another demo running?): %w", name, err)
	}
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+quoted); err != nil {
		return "", "", fmt.Errorf("demo: create database %s: %w", name, err)
	}
	du := *u
	du.Path = "/" + name
	var out strings.Builder
	if err := migrate(ctx, du.String(), "up", 0, &out); err != nil {
		return "", "", fmt.Errorf("demo: migrate %s: %w", name, err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	return du.String(), fmt.Sprintf("PostgreSQL: database %s created afresh and migrated (%d migrations applied, %s)",
		name, len(lines)-1, lines[len(lines)-1]), nil
}
