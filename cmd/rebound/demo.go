package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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
PostgreSQL (DATABASE_URL, migrated) and Redis (REDIS_URL) must be running:
` + "`make demo`" + ` starts and migrates them first.`

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
		DatabaseURL: cfg.DatabaseURL,
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
		fmt.Fprintf(stderr, "rebound demo: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "rebound demo: done in %.1fs\n", time.Since(t0).Seconds())
	return 0
}
