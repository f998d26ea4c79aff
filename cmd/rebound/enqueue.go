package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/hibiken/asynq"

	"github.com/rebound-hq/rebound/internal/config"
	"github.com/rebound-hq/rebound/internal/tasks"
)

const enqueueUsage = `usage: rebound enqueue reprocess [--since DATE] [--batch N]
Queues a reprocessing run (tracking:reprocess) on the workers' reprocessing
queue instead of running it here: a worker re-decodes the stored raw messages
and corrects their events, timelines, lead states, suppressions and counters,
as rebound reprocess does, logging its progress. The same run is not queued
twice while one is pending or running. A run starts at most RAW_RETENTION
minus a day ago (older messages may have lost their bytes).
  --since DATE  only messages received at or after DATE (2006-01-02, UTC, or
                RFC 3339); default: all that still hold their bytes
  --batch N     messages per transaction (default 200)
Redis is REDIS_URL (or the Sentinel / Cluster settings), as for the worker.`

// runEnqueue implements `rebound enqueue reprocess` over
// tasks.EnqueueReprocess.
func runEnqueue(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintln(stdout, enqueueUsage)
		return 0
	}
	if len(args) == 0 || args[0] != "reprocess" {
		fmt.Fprintf(stderr, "rebound enqueue: want a task kind (reprocess), got %q\n%s\n", args, enqueueUsage)
		return 2
	}
	args = args[1:]
	fs := flag.NewFlagSet("enqueue reprocess", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	since := fs.String("since", "", "")
	batch := fs.Int("batch", 200, "")
	if err := fs.Parse(args); err != nil || fs.NArg() != 0 {
		if err == flag.ErrHelp {
			fmt.Fprintln(stdout, enqueueUsage)
			return 0
		}
		fmt.Fprintf(stderr, "rebound enqueue reprocess: bad arguments %q\n%s\n", args, enqueueUsage)
		return 2
	}
	var p tasks.ReprocessPayload
	if *since != "" {
		t, err := parseSince(*since)
		if err != nil {
			fmt.Fprintf(stderr, "rebound enqueue reprocess: --since wants a date such as 2026-11-30 or 2026-11-30T08:00:00Z, got %q\n", *since)
			return 2
		}
		p.Since = t
	}
	if *batch < 1 || *batch > 10000 {
		fmt.Fprintf(stderr, "rebound enqueue reprocess: --batch wants a number from 1 to 10000, got %d\n", *batch)
		return 2
	}
	p.BatchSize = *batch
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintf(stderr, "rebound enqueue reprocess: %v\n", err)
		return 1
	}
	opt, err := tasks.RedisConnOpt(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "rebound enqueue reprocess: %v\n", err)
		return 1
	}
	client := asynq.NewClient(opt)
	defer client.Close()
	queued, err := tasks.EnqueueReprocess(ctx, client, p)
	if err != nil {
		fmt.Fprintf(stderr, "rebound enqueue reprocess: %v\n", err)
		return 1
	}
	if !queued {
		fmt.Fprintln(stdout, "the same reprocessing run is already queued or running")
		return 0
	}
	fmt.Fprintf(stdout, "reprocessing queued on %q (since %s, batch %d)\n", tasks.QueueReprocessing, sinceText(p), p.BatchSize)
	return 0
}

func sinceText(p tasks.ReprocessPayload) string {
	if p.Since.IsZero() {
		return "the retention limit"
	}
	return p.Since.Format("2006-01-02T15:04:05Z07:00")
}
