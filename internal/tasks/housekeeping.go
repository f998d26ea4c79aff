package tasks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"

	"github.com/rebound-hq/rebound/internal/logging"
)

// TypeHousekeeping is the periodic maintenance task: it deletes archived
// (dead) tasks older than the retention from the worker's queues, so Redis
// does not fill with failures nobody will retry, and logs each queue's size.
const TypeHousekeeping = "maintenance:housekeeping"

// HousekeepingSchedule enqueues housekeeping at minute 17 of every hour
// (UTC); a wall-clock cron line fires even when workers restart more often
// than hourly.
const HousekeepingSchedule = "17 * * * *"

// DefaultArchiveRetention keeps archived tasks a week, long enough to look
// into a failure.
const DefaultArchiveRetention = 7 * 24 * time.Hour

// NewHousekeepingTask returns a housekeeping task for the housekeeping queue.
// Its empty payload makes asynq.Unique collapse the copies enqueued by
// several replicas' schedulers.
func NewHousekeepingTask() *asynq.Task {
	return asynq.NewTask(TypeHousekeeping, nil, asynq.Queue(QueueHousekeeping), asynq.MaxRetry(1))
}

// Housekeeping handles TypeHousekeeping.
type Housekeeping struct {
	// Inspector reads and deletes tasks on the worker's Redis.
	Inspector *asynq.Inspector
	// Queues are the queues to clean.
	Queues []string
	// Retention is how long an archived task is kept after its last failure.
	Retention time.Duration
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// RegisterHousekeeping registers the housekeeping handler on w and schedules
// it every hour (unique for an hour, so replicas do not repeat it). The
// returned inspector is closed by the caller after w.Run returns.
func RegisterHousekeeping(w *Worker, retention time.Duration) (*asynq.Inspector, error) {
	insp := asynq.NewInspector(w.RedisConnOpt())
	w.Handle(TypeHousekeeping, &Housekeeping{Inspector: insp, Queues: w.Queues(), Retention: retention})
	if err := w.Schedule(HousekeepingSchedule, NewHousekeepingTask(), asynq.Unique(time.Hour)); err != nil {
		insp.Close()
		return nil, err
	}
	return insp, nil
}

// ProcessTask deletes archived tasks whose last failure is older than the
// retention. Tasks archived without a failure time (by an operator) are kept.
func (h *Housekeeping) ProcessTask(ctx context.Context, _ *asynq.Task) error {
	now := time.Now
	if h.Now != nil {
		now = h.Now
	}
	cutoff := now().Add(-h.Retention)
	log := logging.FromContext(ctx)
	for _, q := range h.Queues {
		deleted, err := h.purgeArchived(q, cutoff)
		if errors.Is(err, asynq.ErrQueueNotFound) {
			continue // a queue that never held a task does not exist in Redis yet
		}
		if err != nil {
			return err
		}
		info, err := h.Inspector.GetQueueInfo(q)
		if err != nil {
			return fmt.Errorf("tasks: housekeeping: queue %s: %w", q, err)
		}
		log.Info("tasks: housekeeping", "queue", q, "pending", info.Pending, "active", info.Active,
			"scheduled", info.Scheduled, "retry", info.Retry, "archived", info.Archived, "deleted_archived", deleted)
	}
	return nil
}

// purgeArchived deletes the archived tasks of queue q that last failed
// before cutoff. The error wraps asynq.ErrQueueNotFound when q does not exist.
func (h *Housekeeping) purgeArchived(q string, cutoff time.Time) (int, error) {
	const pageSize = 100
	var old []string
	for page := 1; ; page++ {
		tasks, err := h.Inspector.ListArchivedTasks(q, asynq.PageSize(pageSize), asynq.Page(page))
		if err != nil {
			return 0, fmt.Errorf("tasks: housekeeping: list archived tasks of %s: %w", q, err)
		}
		for _, t := range tasks {
			if !t.LastFailedAt.IsZero() && t.LastFailedAt.Before(cutoff) {
				old = append(old, t.ID)
			}
		}
		if len(tasks) < pageSize {
			break
		}
	}
	// Delete after listing, so deletions do not shift the pages.
	for _, id := range old {
		if err := h.Inspector.DeleteTask(q, id); err != nil {
			return 0, fmt.Errorf("tasks: housekeeping: delete archived task %s of %s: %w", id, q, err)
		}
	}
	return len(old), nil
}
