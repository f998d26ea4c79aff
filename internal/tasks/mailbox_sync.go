// Package tasks holds Rebound's background work on asynq: the mailbox sync
// task (type "mailbox:sync"), its handler, and the scheduler that enqueues
// due mailboxes every minute.
//
// A sync runs at most once at a time per mailbox: the task is enqueued with
// asynq's Unique option, and the handler also takes a PostgreSQL advisory
// lock, because uniqueness lapses with its TTL. Network failures make the
// task fail so asynq retries it with RetryDelay's backoff, and push the
// mailbox's next scheduled sync further out with each consecutive failure;
// an authentication failure sets the mailbox to auth_error and stops it
// until its credentials change (mailbox.Service.Update).
package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/hibiken/asynq"
	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/mailbox"
	"github.com/rebound-hq/rebound/internal/metrics"
	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/internal/tracking"
)

// TypeMailboxSync is the asynq task type of a mailbox sync.
const TypeMailboxSync = "mailbox:sync"

// uniqueTTL is how long a queued sync of a mailbox blocks another enqueue.
const uniqueTTL = 30 * time.Minute

// MaxRetry is the number of asynq retries of a failed sync; the scheduler
// takes over after that.
const MaxRetry = 3

// MailboxSyncPayload is the task payload: the mailbox id only, so a queued
// task never carries settings or secrets that may change before it runs.
type MailboxSyncPayload struct {
	MailboxID int64 `json:"mailbox_id"`
}

// NewMailboxSyncTask returns the sync task of a mailbox, unique per mailbox
// for 30 minutes (asynq.Unique), on the syncs queue, with MaxRetry retries.
func NewMailboxSyncTask(mailboxID int64) (*asynq.Task, error) {
	if mailboxID <= 0 {
		return nil, fmt.Errorf("tasks: invalid mailbox id %d", mailboxID)
	}
	b, err := json.Marshal(MailboxSyncPayload{MailboxID: mailboxID})
	if err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	return asynq.NewTask(TypeMailboxSync, b, asynq.Unique(uniqueTTL), asynq.Queue(QueueSyncs),
		asynq.MaxRetry(MaxRetry), asynq.Timeout(30*time.Minute)), nil
}

// Enqueuer enqueues tasks (an *asynq.Client in production).
type Enqueuer interface {
	EnqueueContext(ctx context.Context, task *asynq.Task, opts ...asynq.Option) (*asynq.TaskInfo, error)
}

// EnqueueSync queues a sync of a mailbox (the API's "trigger sync" and the
// scheduler); opts override the task's options (tests pick their own
// queue). A sync already queued is not an error: it returns queued=false
// and nil.
func EnqueueSync(ctx context.Context, q Enqueuer, mailboxID int64, opts ...asynq.Option) (queued bool, err error) {
	t, err := NewMailboxSyncTask(mailboxID)
	if err != nil {
		return false, err
	}
	if queued, err = enqueue(ctx, q, t, opts); err != nil {
		return false, fmt.Errorf("tasks: enqueue sync of mailbox %d: %w", mailboxID, err)
	}
	return queued, nil
}

// enqueue queues t with opts. A task already queued (asynq.Unique or a
// task ID still held) is not an error: it returns queued=false and nil.
func enqueue(ctx context.Context, q Enqueuer, t *asynq.Task, opts []asynq.Option) (queued bool, err error) {
	_, err = q.EnqueueContext(ctx, t, opts...)
	if errors.Is(err, asynq.ErrDuplicateTask) || errors.Is(err, asynq.ErrTaskIDConflict) {
		return false, nil
	}
	return err == nil, err
}

// RetryDelay is the asynq RetryDelayFunc for mailbox syncs: 30s, 2m, 8m, …
// with ±20% jitter, at most 1h. Pass it as asynq.Config.RetryDelayFunc.
func RetryDelay(n int, _ error, _ *asynq.Task) time.Duration {
	d := 30 * time.Second << (2 * min(n, 6))
	d = min(d, time.Hour)
	return jitter(d, 0.2)
}

// jitter spreads d by ±frac so mailboxes added together do not stay in step.
func jitter(d time.Duration, frac float64) time.Duration {
	return time.Duration(float64(d) * (1 - frac + 2*frac*rand.Float64()))
}

// failureBackoff is how long the scheduler waits after n consecutive failed
// syncs: the mailbox interval doubled per failure, at most 6 hours.
func failureBackoff(interval time.Duration, n int) time.Duration {
	d := interval << min(n, 8)
	return min(d, 6*time.Hour)
}

// RegisterMailboxSync registers the mailbox sync handler and the
// scheduling task (every minute, unique across replicas) on w.
func RegisterMailboxSync(w *Worker, s *Syncer, sched *Scheduler) error {
	w.Handle(TypeMailboxSync, asynq.HandlerFunc(s.HandleMailboxSync))
	w.Handle(TypeMailboxSchedule, sched)
	return w.Schedule(MailboxSchedule, NewMailboxScheduleTask(), asynq.Unique(50*time.Second))
}

// retryDelay picks RetryDelay for mailbox syncs and asynq's default
// otherwise; the Worker's asynq.Config.RetryDelayFunc.
func retryDelay(n int, err error, t *asynq.Task) time.Duration {
	if t != nil && t.Type() == TypeMailboxSync {
		return RetryDelay(n, err, t)
	}
	return asynq.DefaultRetryDelayFunc(n, err, t)
}

// Syncer runs mailbox syncs; its HandleMailboxSync is the asynq handler.
type Syncer struct {
	DB       *gorm.DB
	Mailbox  *mailbox.Service
	Tracking *tracking.Service
	Now      func() time.Time // nil means time.Now
	Logger   *slog.Logger     // nil discards
	// Sync tunes the IMAP side (batch size, message cap); checkpoints are
	// filled in per mailbox.
	Sync mailbox.SyncOptions
}

func (s *Syncer) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Syncer) log() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// HandleMailboxSync is the asynq handler of TypeMailboxSync. A payload that
// cannot be parsed fails with asynq.SkipRetry, as does an authentication
// failure (the mailbox goes to auth_error). A sync already running
// elsewhere (advisory lock held) or a mailbox deleted, paused or stopped
// meanwhile ends the task without error.
func (s *Syncer) HandleMailboxSync(ctx context.Context, t *asynq.Task) error {
	var p MailboxSyncPayload
	if err := json.Unmarshal(t.Payload(), &p); err != nil || p.MailboxID <= 0 {
		return fmt.Errorf("tasks: bad %s payload %q: %v: %w", TypeMailboxSync, t.Payload(), err, asynq.SkipRetry)
	}
	_, err := s.SyncMailbox(ctx, p.MailboxID)
	return err
}

// SyncMailbox syncs one mailbox now, under its advisory lock, and stores
// the outcome (status, last sync, last error, counters, next sync time).
// It returns the sync's stats; the error is nil when there was nothing to
// do, wraps asynq.SkipRetry when retrying cannot help, and is the network
// or database error otherwise.
func (s *Syncer) SyncMailbox(ctx context.Context, id int64) (mailbox.Stats, error) {
	log := s.log().With("mailbox_id", id)
	unlock, err := store.LockMailboxSync(ctx, s.DB, id)
	if errors.Is(err, store.ErrLocked) {
		metrics.SyncFinished(metrics.SyncSkipped)
		log.Info("tasks: sync already running; skipped")
		return mailbox.Stats{}, nil
	}
	if err != nil {
		return mailbox.Stats{}, fmt.Errorf("tasks: %w", err)
	}
	defer unlock()

	row, err := store.GetMailboxForSync(ctx, s.DB, id)
	if errors.Is(err, store.ErrNotFound) {
		log.Info("tasks: mailbox deleted; sync dropped")
		return mailbox.Stats{}, nil
	}
	if err != nil {
		return mailbox.Stats{}, fmt.Errorf("tasks: %w", err)
	}
	if row.Status != store.MailboxActive && row.Status != store.MailboxError {
		log.Info("tasks: mailbox not active; sync dropped", "status", row.Status)
		return mailbox.Stats{}, nil
	}
	start := s.now()
	if err := store.SyncStarted(ctx, s.DB, id, start); err != nil {
		return mailbox.Stats{}, fmt.Errorf("tasks: %w", err)
	}
	settings, creds, err := s.Mailbox.Load(row)
	if err != nil {
		// Sealed with a key no longer configured, or corrupt: only new
		// credentials can fix it.
		metrics.SyncFinished(metrics.SyncAuthError)
		s.finish(ctx, row, settings, mailbox.Stats{}, err, store.MailboxAuthError)
		return mailbox.Stats{}, fmt.Errorf("tasks: %w: %w", err, asynq.SkipRetry)
	}
	cps, err := store.MailboxCheckpoints(ctx, s.DB, id)
	if err != nil {
		return mailbox.Stats{}, fmt.Errorf("tasks: %w", err)
	}
	opts := s.Sync
	opts.Checkpoints = make(map[string]mailbox.Checkpoint, len(cps))
	for _, c := range cps {
		opts.Checkpoints[c.Name] = mailbox.Checkpoint{Folder: c.Name, UIDValidity: uint32(c.UIDValidity), LastUID: uint32(c.LastUID)}
	}
	opts.Logger = log

	conn, err := mailbox.Dial(ctx, settings, creds, s.Mailbox.Policy)
	if err != nil {
		return mailbox.Stats{}, s.fail(ctx, row, settings, err, mailbox.Stats{})
	}
	defer conn.Close()
	if rt := conn.RotatedRefreshToken(); rt != "" {
		creds.RefreshToken = rt
		if err := s.Mailbox.Reseal(ctx, row, creds); err != nil {
			return mailbox.Stats{}, s.fail(ctx, row, settings, err, mailbox.Stats{})
		}
	}
	rec := &Recorder{Tracking: s.Tracking, WorkspaceID: row.WorkspaceID, MailboxID: row.ID}
	st, err := conn.Sync(ctx, rec, &opts)
	if err != nil {
		return st, s.fail(ctx, row, settings, err, st)
	}
	s.finish(ctx, row, settings, st, nil, store.MailboxActive)
	metrics.SyncFinished(metrics.SyncOK)
	log.Info("tasks: mailbox synced", "seen", st.Seen, "fetched", st.Fetched, "bounces", st.Bounces,
		"took", s.now().Sub(start).Round(time.Millisecond))
	return st, nil
}

// fail stores a failed sync, with the stats of what it committed, and
// returns the error for asynq.
func (s *Syncer) fail(ctx context.Context, row *store.MailboxRow, settings mailbox.Settings, err error, st mailbox.Stats) error {
	if ctx.Err() != nil {
		// Shutdown (or the task's deadline) cut the sync short: what was
		// committed stays, with its checkpoint; the rest is for the next
		// sync, which is due at once. Not a failure of the mailbox.
		s.interrupted(ctx, row, st)
		return fmt.Errorf("tasks: mailbox %d: sync interrupted after %d messages: %w", row.ID, st.Seen, err)
	}
	if errors.Is(err, mailbox.ErrAuth) {
		metrics.SyncFinished(metrics.SyncAuthError)
		s.finish(ctx, row, settings, st, err, store.MailboxAuthError)
		return fmt.Errorf("tasks: mailbox %d: %w: %w", row.ID, err, asynq.SkipRetry)
	}
	metrics.SyncFinished(metrics.SyncError)
	s.finish(ctx, row, settings, st, err, store.MailboxError)
	var ve *mailbox.ValidationError
	if errors.As(err, &ve) || errors.Is(err, mailbox.ErrPrivateHost) || errors.Is(err, mailbox.ErrCapability) {
		// Settings the deployment refuses: retrying cannot help.
		return fmt.Errorf("tasks: mailbox %d: %w: %w", row.ID, err, asynq.SkipRetry)
	}
	return fmt.Errorf("tasks: mailbox %d: %w", row.ID, err)
}

func (s *Syncer) finish(ctx context.Context, row *store.MailboxRow, settings mailbox.Settings, st mailbox.Stats, syncErr error, status string) {
	now := s.now()
	interval := settings.SyncInterval()
	if interval <= 0 {
		interval = mailbox.DefaultSyncInterval
	}
	r := store.SyncResult{Status: status, Seen: int64(st.Seen), Bounces: int64(st.Bounces)}
	if syncErr != nil {
		r.Err, r.Failed = syncErr.Error(), true
		r.NextSyncAt = now.Add(jitter(failureBackoff(interval, row.ConsecutiveFailures+1), 0.1))
	} else {
		r.NextSyncAt = now.Add(jitter(interval, 0.1))
	}
	// The outcome must be stored even when the task's context has ended.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := store.FinishSync(wctx, s.DB, row.ID, now, r); err != nil {
		s.log().Error("tasks: store sync outcome", "mailbox_id", row.ID, "err", err)
	}
}

// interrupted stores the outcome of a sync cut short by its context: the
// status and last error stay, the counters take what was committed, and the
// mailbox is due again at once.
func (s *Syncer) interrupted(ctx context.Context, row *store.MailboxRow, st mailbox.Stats) {
	now := s.now()
	r := store.SyncResult{Status: row.Status, Err: row.LastError, Seen: int64(st.Seen), Bounces: int64(st.Bounces), NextSyncAt: now}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := store.FinishSync(wctx, s.DB, row.ID, now, r); err != nil {
		s.log().Error("tasks: store interrupted sync", "mailbox_id", row.ID, "err", err)
	}
	s.log().Info("tasks: sync interrupted; the rest is left for the next sync", "mailbox_id", row.ID,
		"seen", st.Seen, "bounces", st.Bounces)
}

// Recorder adapts tracking.Service to mailbox.Recorder for one mailbox.
type Recorder struct {
	Tracking    *tracking.Service
	WorkspaceID int64
	MailboxID   int64
}

// RecordBatch records msgs and the checkpoint in one tracking transaction.
// A message counts as a bounce when recording it created at least one
// bounce event (a duplicate of an earlier message does not).
func (r *Recorder) RecordBatch(ctx context.Context, msgs []mailbox.Message, cp mailbox.Checkpoint) (mailbox.BatchResult, error) {
	in := make([]tracking.Incoming, len(msgs))
	for i, m := range msgs {
		in[i] = tracking.Incoming{
			WorkspaceID: r.WorkspaceID, MailboxID: r.MailboxID, Folder: m.Folder,
			UIDValidity: m.UIDValidity, UID: m.UID, Raw: m.Raw, ReceivedAt: m.InternalDate,
		}
	}
	out, err := r.Tracking.RecordBatch(ctx, in, &tracking.Checkpoint{
		MailboxID: r.MailboxID, Folder: cp.Folder, UIDValidity: cp.UIDValidity, LastUID: cp.LastUID,
	})
	if err != nil {
		return mailbox.BatchResult{}, err
	}
	var res mailbox.BatchResult
	for i, o := range out {
		for _, e := range o.Events {
			metrics.EventRecorded(e.Kind, e.Class)
		}
		if !o.Duplicate && len(o.Events) > 0 {
			res.BounceUIDs = append(res.BounceUIDs, msgs[i].UID)
		}
	}
	return res, nil
}
