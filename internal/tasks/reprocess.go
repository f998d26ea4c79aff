package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hibiken/asynq"

	"github.com/rebound-hq/rebound/internal/logging"
	"github.com/rebound-hq/rebound/internal/tracking"
)

// TypeReprocess is the task that re-decodes stored raw messages
// (tracking.Service.Reprocess) on a worker, on QueueReprocessing, so a long
// run neither ties up an operator's terminal nor competes with syncs beyond
// the queue's weight.
const TypeReprocess = "tracking:reprocess"

// reprocessTimeout bounds one run. A run cut short (timeout, shutdown) is
// retried from the start: Reprocess changes nothing the second time over
// messages it already corrected, so a retry only costs time.
const reprocessTimeout = 12 * time.Hour

// ReprocessPayload selects what a reprocess task re-decodes.
type ReprocessPayload struct {
	// Since selects messages received at or after it (zero: all stored
	// messages that still hold their bytes; see Reprocessor.RawRetention).
	Since time.Time `json:"since"`
	// BatchSize is the number of messages per transaction (0: 200).
	BatchSize int `json:"batch_size,omitempty"`
}

// NewReprocessTask returns a reprocess task on QueueReprocessing. The same
// run (same payload) is not queued twice while one is pending or running
// (asynq.Unique over the timeout).
func NewReprocessTask(p ReprocessPayload) (*asynq.Task, error) {
	if p.BatchSize < 0 || p.BatchSize > 10000 {
		return nil, fmt.Errorf("tasks: reprocess batch size %d: want 0 to 10000", p.BatchSize)
	}
	p.Since = p.Since.UTC()
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	return asynq.NewTask(TypeReprocess, b, asynq.Queue(QueueReprocessing), asynq.MaxRetry(2),
		asynq.Timeout(reprocessTimeout), asynq.Unique(reprocessTimeout)), nil
}

// Reprocessor handles TypeReprocess.
type Reprocessor struct {
	Tracking *tracking.Service
	// RawRetention is RAW_RETENTION: messages older than it may have lost
	// their bytes to housekeeping, so a run starts at most RawRetention
	// minus a day ago (0: no limit).
	RawRetention time.Duration
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// since returns where a run asked to start at from really starts.
func (r *Reprocessor) since(from time.Time) time.Time {
	if r.RawRetention <= 0 {
		return from
	}
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	floor := now().Add(-r.RawRetention + 24*time.Hour).UTC()
	if from.Before(floor) {
		return floor
	}
	return from
}

// ProcessTask runs tracking.Service.Reprocess over the payload's messages,
// logging progress after every batch. A payload that does not parse fails
// with asynq.SkipRetry.
func (r *Reprocessor) ProcessTask(ctx context.Context, t *asynq.Task) error {
	var p ReprocessPayload
	if err := json.Unmarshal(t.Payload(), &p); err != nil || p.BatchSize < 0 {
		return fmt.Errorf("tasks: bad %s payload %q: %v: %w", TypeReprocess, t.Payload(), err, asynq.SkipRetry)
	}
	log := logging.FromContext(ctx)
	since := r.since(p.Since)
	if !since.Equal(p.Since) {
		log.Info("tasks: reprocess starts at the raw retention limit", "asked", p.Since, "since", since)
	}
	start := time.Now()
	st, err := r.Tracking.Reprocess(ctx, tracking.ReprocessOptions{
		Since:     since,
		BatchSize: p.BatchSize,
		Progress: func(st tracking.ReprocessStats) {
			log.Info("tasks: reprocess progress", "messages", st.Messages, "changed", st.Changed)
		},
	})
	log.Info("tasks: reprocess finished", "messages", st.Messages, "changed", st.Changed,
		"events_created", st.EventsCreated, "events_updated", st.EventsUpdated, "events_deleted", st.EventsDeleted,
		"leads_replayed", st.LeadsReplayed, "undecoded_after", st.UndecodedAfter,
		"took", time.Since(start).Round(time.Millisecond).String(), "err", err)
	if err != nil {
		return fmt.Errorf("tasks: reprocess: %w", err)
	}
	return nil
}

// EnqueueReprocess queues a reprocess run. A run with the same payload
// already queued is not an error: it returns queued=false and nil.
func EnqueueReprocess(ctx context.Context, q Enqueuer, p ReprocessPayload, opts ...asynq.Option) (queued bool, err error) {
	t, err := NewReprocessTask(p)
	if err != nil {
		return false, err
	}
	if queued, err = enqueue(ctx, q, t, opts); err != nil {
		return false, fmt.Errorf("tasks: enqueue reprocess: %w", err)
	}
	return queued, nil
}
