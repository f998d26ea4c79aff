package tasks

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/rebound-hq/rebound/internal/mailbox/mailboxtest"
	"github.com/rebound-hq/rebound/internal/tracking"
)

// TestReprocessTaskOnWorker records bounces, spoils their stored verdicts,
// and has a worker's reprocess task put them right.
func TestReprocessTaskOnWorker(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	now := time.Now().UTC()
	var in []tracking.Incoming
	for i := range 20 {
		in = append(in, tracking.Incoming{WorkspaceID: f.ws, Raw: mailboxtest.Bounce(i, now), ReceivedAt: now.Add(-time.Duration(i) * time.Hour)})
	}
	if _, err := f.syncer.Tracking.RecordBatch(ctx, in, nil); err != nil {
		t.Fatal(err)
	}
	if n := f.count(t, `SELECT count(*) FROM bounce_events WHERE reason = 'userunknown'`); n != 20 {
		t.Fatalf("%d userunknown events recorded, want 20", n)
	}
	if err := f.db.Exec(`UPDATE bounce_events SET reason = 'other', label = 'Other'`).Error; err != nil {
		t.Fatal(err)
	}

	w, queue := newTestWorker(t)
	w.Handle(TypeReprocess, &Reprocessor{Tracking: f.syncer.Tracking, RawRetention: 180 * 24 * time.Hour})
	start(t, w)
	c := asynq.NewClient(w.RedisConnOpt())
	defer c.Close()
	// Only the messages of the last 10 hours (received 0..9 hours ago).
	p := ReprocessPayload{Since: now.Add(-10*time.Hour + time.Minute), BatchSize: 3}
	if ok, err := EnqueueReprocess(ctx, c, p, asynq.Queue(queue)); err != nil || !ok {
		t.Fatalf("EnqueueReprocess = %v, %v", ok, err)
	}
	if ok, err := EnqueueReprocess(ctx, c, p, asynq.Queue(queue)); err != nil || ok {
		t.Fatalf("second EnqueueReprocess of the same run = %v, %v; want false, nil", ok, err)
	}
	for deadline := time.Now().Add(30 * time.Second); f.count(t, `SELECT count(*) FROM bounce_events WHERE reason = 'userunknown'`) < 10; {
		if time.Now().After(deadline) {
			t.Fatal("reprocess task did not correct the events within 30s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	if n := f.count(t, `SELECT count(*) FROM bounce_events WHERE reason = 'userunknown'`); n != 10 {
		t.Fatalf("%d events corrected, want the 10 of the last 10 hours", n)
	}
}

func TestReprocessPayloadAndRetention(t *testing.T) {
	if _, err := NewReprocessTask(ReprocessPayload{BatchSize: -1}); err == nil {
		t.Error("negative batch size accepted")
	}
	task, err := NewReprocessTask(ReprocessPayload{})
	if err != nil || task.Type() != TypeReprocess {
		t.Fatalf("NewReprocessTask = %v, %v", task, err)
	}
	r := &Reprocessor{}
	if err := r.ProcessTask(context.Background(), asynq.NewTask(TypeReprocess, []byte("{"))); !errors.Is(err, asynq.SkipRetry) {
		t.Errorf("bad payload: %v, want SkipRetry", err)
	}
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	r = &Reprocessor{RawRetention: 180 * 24 * time.Hour, Now: func() time.Time { return now }}
	floor := now.Add(-179 * 24 * time.Hour)
	if got := r.since(time.Time{}); !got.Equal(floor) {
		t.Errorf("since(zero) = %v, want %v (the retention limit plus a day)", got, floor)
	}
	recent := now.Add(-time.Hour)
	if got := r.since(recent); !got.Equal(recent) {
		t.Errorf("since(recent) = %v", got)
	}
	if got := (&Reprocessor{}).since(time.Time{}); !got.IsZero() {
		t.Errorf("without retention since(zero) = %v", got)
	}
}
