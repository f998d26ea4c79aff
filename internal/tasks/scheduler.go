package tasks

import (
	"context"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"
	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/store"
)

// Scheduler enqueues a sync of every due mailbox; the worker's asynq
// scheduler runs it every minute (TypeMailboxSchedule). Each
// mailbox's next_sync_at is set by the sync's outcome (its interval,
// jittered, or a growing backoff after failures); claiming a mailbox moves
// it Hold ahead so a queued sync is not enqueued again. Several schedulers
// (one per worker replica) can run at once.
type Scheduler struct {
	DB     *gorm.DB
	Queue  Enqueuer
	Hold   time.Duration    // 0 means 30 minutes (the task's Unique TTL)
	Batch  int              // mailboxes claimed per round; 0 means 500
	Now    func() time.Time // nil means time.Now
	Logger *slog.Logger     // nil discards
	// Options are passed to EnqueueSync (tests set their own queue).
	Options []asynq.Option
}

// TypeMailboxSchedule is the periodic task whose handler enqueues the
// syncs of due mailboxes.
const TypeMailboxSchedule = "mailbox:schedule"

// MailboxSchedule is how often the worker's scheduler runs the scheduling
// task.
const MailboxSchedule = "* * * * *"

// NewMailboxScheduleTask returns the scheduling task (no payload).
func NewMailboxScheduleTask() *asynq.Task {
	return asynq.NewTask(TypeMailboxSchedule, nil, asynq.Queue(QueueSyncs), asynq.MaxRetry(0))
}

// ProcessTask is the handler of TypeMailboxSchedule.
func (s *Scheduler) ProcessTask(ctx context.Context, _ *asynq.Task) error {
	n, err := s.EnqueueDue(ctx)
	if n > 0 {
		s.log().Info("tasks: mailbox syncs enqueued", "count", n)
	}
	return err
}

func (s *Scheduler) log() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// EnqueueDue claims the due mailboxes and enqueues their syncs, returning
// how many were newly queued. When an enqueue fails, that mailbox and the
// rest of its batch are due again at once (their claims are undone), so
// the next round retries them.
func (s *Scheduler) EnqueueDue(ctx context.Context) (int, error) {
	now := time.Now()
	if s.Now != nil {
		now = s.Now()
	}
	hold, batch := s.Hold, s.Batch
	if hold <= 0 {
		hold = uniqueTTL
	}
	if batch <= 0 {
		batch = 500
	}
	queued := 0
	for {
		ids, err := store.ClaimDueMailboxes(ctx, s.DB, now, hold, batch)
		if err != nil {
			return queued, err
		}
		for i, id := range ids {
			ok, err := EnqueueSync(ctx, s.Queue, id, s.Options...)
			if err != nil {
				// Undo the claims not enqueued: this mailbox's and the
				// rest of the batch's, which would otherwise wait Hold;
				// also when the failure is ctx ending (shutdown).
				uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
				defer cancel()
				for _, id := range ids[i:] {
					if uerr := store.RescheduleMailbox(uctx, s.DB, id, now); uerr != nil {
						s.log().Error("tasks: undo claim", "mailbox_id", id, "err", uerr)
					}
				}
				return queued, err
			}
			if ok {
				queued++
			}
		}
		if len(ids) < batch {
			return queued, nil
		}
	}
}
