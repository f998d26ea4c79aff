// Package tasks runs Rebound's background work on asynq (Redis): the task
// types and their handlers, the worker that processes them, and the
// scheduler that enqueues periodic tasks.
//
// Task types are named "area:action" (asynq's convention). Each type has a
// NewXTask constructor and a handler registered on the Worker with Handle;
// periodic tasks are added with Schedule. A handler returns an error to have
// the task retried, or one wrapping asynq.SkipRetry when retrying cannot help
// (a payload that does not parse).
package tasks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/hibiken/asynq"

	"github.com/rebound-hq/rebound/internal/logging"
)

// Queues the worker serves. Each task type goes to one queue:
// mailbox syncs and their scheduling to QueueSyncs, reprocessing runs to
// QueueReprocessing, maintenance to QueueHousekeeping.
const (
	// QueueSyncs takes mailbox syncs and the scheduling task.
	QueueSyncs = "syncs"
	// QueueReprocessing takes reprocessing runs (TypeReprocess).
	QueueReprocessing = "reprocessing"
	// QueueHousekeeping takes housekeeping; it gets a small share of the workers.
	QueueHousekeeping = "housekeeping"
)

// DefaultQueues maps each queue to its priority weight. With the default
// weighted priority, a free worker slot takes its next task from a queue
// chosen at random in proportion to these weights (6:3:1) among the queues
// holding tasks, so housekeeping and reprocessing progress even under a
// backlog of syncs. With Options.StrictPriority, a queue is served only when
// every queue of a higher weight is empty (syncs first).
var DefaultQueues = map[string]int{QueueSyncs: 6, QueueReprocessing: 3, QueueHousekeeping: 1}

// Options configures a Worker.
type Options struct {
	// RedisURL locates Redis: redis://[user:password@]host:port/db, rediss://
	// or redis-socket://path. Ignored when Redis is set.
	RedisURL string
	// Redis, when set, is the connection to use instead of RedisURL (Sentinel
	// or Cluster; see RedisConnOpt).
	Redis asynq.RedisConnOpt
	// StrictPriority serves queues in strict weight order instead of in
	// proportion to their weights (see DefaultQueues).
	StrictPriority bool
	// Concurrency is the number of tasks processed at once (default 10).
	Concurrency int
	// ShutdownTimeout is how long Run waits for tasks in flight when its
	// context ends (default 20s); tasks still running then are put back in
	// their queue, their handlers' contexts are cancelled, and Run waits up
	// to DrainTimeout more for those handlers to return.
	ShutdownTimeout time.Duration
	// DrainTimeout bounds the wait for handlers cancelled at shutdown
	// (default 10s), so their last database writes end before the process
	// closes its connections.
	DrainTimeout time.Duration
	// Queues overrides DefaultQueues (tests use queues of their own).
	Queues map[string]int
	// Log receives the worker's lines; each task's handler gets it through
	// logging.FromContext with the task type and ID attached. Nil means
	// slog.Default().
	Log *slog.Logger
}

// Worker is an asynq server and scheduler on one Redis.
type Worker struct {
	opts      Options
	inflight  sync.WaitGroup
	redis     asynq.RedisConnOpt
	mux       *asynq.ServeMux
	server    *asynq.Server
	scheduler *asynq.Scheduler
	log       *slog.Logger
}

// NewWorker returns a Worker; nothing connects to Redis before Run.
func NewWorker(opts Options) (*Worker, error) {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 10
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = 20 * time.Second
	}
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = 10 * time.Second
	}
	if len(opts.Queues) == 0 {
		opts.Queues = DefaultQueues
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	redisOpt := opts.Redis
	if redisOpt == nil {
		var err error
		if redisOpt, err = asynq.ParseRedisURI(opts.RedisURL); err != nil {
			return nil, fmt.Errorf("tasks: REDIS_URL: %w", err)
		}
	}
	log := opts.Log
	w := &Worker{opts: opts, redis: redisOpt, mux: asynq.NewServeMux(), log: log}
	w.mux.Use(w.taskContext)
	w.server = asynq.NewServer(redisOpt, asynq.Config{
		Concurrency:     opts.Concurrency,
		Queues:          opts.Queues,
		StrictPriority:  opts.StrictPriority,
		ShutdownTimeout: opts.ShutdownTimeout,
		RetryDelayFunc:  retryDelay,
		Logger:          slogAdapter{log},
		LogLevel:        asynq.InfoLevel,
		BaseContext:     func() context.Context { return logging.WithContext(context.Background(), log) },
		ErrorHandler: asynq.ErrorHandlerFunc(func(ctx context.Context, t *asynq.Task, err error) {
			retried, _ := asynq.GetRetryCount(ctx)
			maxRetry, _ := asynq.GetMaxRetry(ctx)
			logging.FromContext(ctx).Warn("tasks: task failed", "retried", retried, "max_retry", maxRetry, "err", err)
		}),
	})
	w.scheduler = asynq.NewScheduler(redisOpt, &asynq.SchedulerOpts{
		Logger:   slogAdapter{log},
		LogLevel: asynq.InfoLevel,
		Location: time.UTC,
		EnqueueErrorHandler: func(t *asynq.Task, _ []asynq.Option, err error) {
			if errors.Is(err, asynq.ErrDuplicateTask) {
				return // another replica's scheduler enqueued it first
			}
			log.Error("tasks: scheduler could not enqueue", "type", t.Type(), "err", err)
		},
	})
	return w, nil
}

// Handle registers the handler of a task type (an exact type or a prefix,
// as asynq.ServeMux matches). Call it before Run.
func (w *Worker) Handle(taskType string, h asynq.Handler) {
	w.mux.Handle(taskType, h)
}

// Schedule has the scheduler enqueue task on cronspec (a cron line, or
// "@every 1h"); opts are the enqueue options, such as asynq.Unique so that
// several replicas do not enqueue it twice. Call it before Run.
func (w *Worker) Schedule(cronspec string, task *asynq.Task, opts ...asynq.Option) error {
	if _, err := w.scheduler.Register(cronspec, task, opts...); err != nil {
		return fmt.Errorf("tasks: schedule %s on %q: %w", task.Type(), cronspec, err)
	}
	return nil
}

// Queues returns the names of the queues this worker serves, sorted.
func (w *Worker) Queues() []string {
	return slices.Sorted(maps.Keys(w.opts.Queues))
}

// RedisConnOpt returns the Redis connection options, for an asynq.Client or
// asynq.Inspector on the same Redis.
func (w *Worker) RedisConnOpt() asynq.RedisConnOpt { return w.redis }

// Run starts processing and scheduling and blocks until ctx ends; it then
// stops the scheduler, stops taking tasks, waits up to ShutdownTimeout for the
// tasks in flight (those still running are put back in their queue and their
// handlers cancelled), waits up to DrainTimeout for the cancelled handlers to
// return, and returns nil. It returns an error when Redis cannot be reached at
// start.
func (w *Worker) Run(ctx context.Context) error {
	if err := w.server.Ping(); err != nil {
		return fmt.Errorf("tasks: connect to Redis: %w", err)
	}
	if err := w.server.Start(w.mux); err != nil {
		return fmt.Errorf("tasks: start server: %w", err)
	}
	if err := w.scheduler.Start(); err != nil {
		w.server.Shutdown()
		return fmt.Errorf("tasks: start scheduler: %w", err)
	}
	w.log.Info("tasks: worker running", "queues", w.opts.Queues, "strict_priority", w.opts.StrictPriority,
		"concurrency", w.opts.Concurrency)
	<-ctx.Done()
	w.log.Info("tasks: worker stopping", "timeout", w.opts.ShutdownTimeout.String())
	w.scheduler.Shutdown()
	w.server.Shutdown()
	// Handlers still running past ShutdownTimeout had their context
	// cancelled and their task put back in the queue; let them unwind
	// (roll back or finish their transaction) before returning.
	drained := make(chan struct{})
	go func() { w.inflight.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(w.opts.DrainTimeout):
		w.log.Warn("tasks: handlers still running after the drain timeout", "timeout", w.opts.DrainTimeout.String())
	}
	w.log.Info("tasks: worker stopped")
	return nil
}

// taskContext gives each task's handler a logger carrying the task's type
// and ID.
func (w *Worker) taskContext(next asynq.Handler) asynq.Handler {
	return asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) error {
		w.inflight.Add(1)
		defer w.inflight.Done()
		id, _ := asynq.GetTaskID(ctx)
		queue, _ := asynq.GetQueueName(ctx)
		log := logging.FromContext(ctx).With("task_type", t.Type(), "task_id", id, "queue", queue)
		return next.ProcessTask(logging.WithContext(ctx, log), t)
	})
}

// slogAdapter is asynq's Logger over slog.
type slogAdapter struct{ l *slog.Logger }

func (a slogAdapter) Debug(args ...any) { a.l.Debug("asynq: " + fmt.Sprint(args...)) }
func (a slogAdapter) Info(args ...any)  { a.l.Info("asynq: " + fmt.Sprint(args...)) }
func (a slogAdapter) Warn(args ...any)  { a.l.Warn("asynq: " + fmt.Sprint(args...)) }
func (a slogAdapter) Error(args ...any) { a.l.Error("asynq: " + fmt.Sprint(args...)) }

// Fatal logs and exits, as asynq's Logger contract requires.
func (a slogAdapter) Fatal(args ...any) {
	a.l.Error("asynq: fatal: " + fmt.Sprint(args...))
	os.Exit(1)
}
