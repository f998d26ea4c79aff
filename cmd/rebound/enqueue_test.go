package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/rebound-hq/rebound/internal/dbtest"
	"github.com/rebound-hq/rebound/internal/tasks"
)

// TestEnqueueReprocess queues a run on a Redis database of its own and
// reads it back from the reprocessing queue.
func TestEnqueueReprocess(t *testing.T) {
	base := dbtest.RedisURL(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/12" // no worker serves this database
	t.Setenv("REDIS_URL", u.String())
	opt, err := asynq.ParseRedisURI(u.String())
	if err != nil {
		t.Fatal(err)
	}
	insp := asynq.NewInspector(opt)
	defer insp.Close()
	_ = insp.DeleteQueue(tasks.QueueReprocessing, true)
	t.Cleanup(func() { _ = insp.DeleteQueue(tasks.QueueReprocessing, true) })

	ctx := context.Background()
	// A since of its own: a run with the same payload stays unique in Redis
	// for hours, past this test.
	since := time.Now().UTC().Truncate(time.Second)
	args := []string{"enqueue", "reprocess", "--since", since.Format(time.RFC3339), "--batch", "50"}
	var out, errb bytes.Buffer
	if code := run(ctx, args, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "reprocessing queued") {
		t.Errorf("stdout %q", out.String())
	}
	pending, err := insp.ListPendingTasks(tasks.QueueReprocessing)
	if err != nil || len(pending) != 1 || pending[0].Type != tasks.TypeReprocess {
		t.Fatalf("pending reprocess tasks: %v, %v", pending, err)
	}
	var p tasks.ReprocessPayload
	t.Cleanup(func() { _ = insp.DeleteTask(tasks.QueueReprocessing, pending[0].ID) })
	if err := json.Unmarshal(pending[0].Payload, &p); err != nil || !p.Since.Equal(since) || p.BatchSize != 50 {
		t.Fatalf("payload %s: %+v, %v", pending[0].Payload, p, err)
	}
	out.Reset()
	if code := run(ctx, args, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "already queued") {
		t.Fatalf("second enqueue: exit %d, %q", code, out.String())
	}
	for _, args := range [][]string{{"enqueue"}, {"enqueue", "sync"}, {"enqueue", "reprocess", "--since", "yesterday"}, {"enqueue", "reprocess", "--batch", "0"}} {
		errb.Reset()
		if code := run(ctx, args, nil, &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 with a message", args, code, errb.String())
		}
	}
}
