package tasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/rebound-hq/rebound/internal/dbtest"
	"github.com/rebound-hq/rebound/internal/logging"
)

// newTestWorker returns a worker serving one queue of its own, so parallel
// tests (and other packages' tests) sharing the Redis do not take its tasks.
func newTestWorker(t *testing.T) (*Worker, string) {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	queue := "test-" + hex.EncodeToString(b)
	w, err := NewWorker(Options{
		RedisURL:        dbtest.RedisURL(t),
		Concurrency:     2,
		ShutdownTimeout: 5 * time.Second,
		Queues:          map[string]int{queue: 1},
		Log:             slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	insp := asynq.NewInspector(w.RedisConnOpt())
	t.Cleanup(func() {
		_ = insp.DeleteQueue(queue, true)
		_ = insp.Close()
	})
	return w, queue
}

// start runs w until the test ends and checks that Run then returns nil.
func start(t *testing.T, w *Worker) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run = %v after cancel, want nil", err)
			}
		case <-time.After(15 * time.Second):
			t.Error("Run did not return after its context ended")
		}
	}
	t.Cleanup(stop)
	return stop
}

func TestWorkerProcessesTasksWithTaskLogger(t *testing.T) {
	w, queue := newTestWorker(t)
	got := make(chan string, 1)
	w.Handle("test:echo", asynq.HandlerFunc(func(ctx context.Context, task *asynq.Task) error {
		// The handler's logger must be the task-scoped one, not slog.Default().
		if logging.FromContext(ctx) == slog.Default() {
			got <- "no task logger"
			return nil
		}
		got <- string(task.Payload())
		return nil
	}))
	start(t, w)

	c := asynq.NewClient(w.RedisConnOpt())
	defer c.Close()
	if _, err := c.Enqueue(asynq.NewTask("test:echo", []byte("hello")), asynq.Queue(queue)); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if s != "hello" {
			t.Errorf("handler saw %q, want hello", s)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("task not processed")
	}
}

func TestShutdownWaitsForTaskInFlight(t *testing.T) {
	w, queue := newTestWorker(t)
	started, finished := make(chan struct{}), make(chan struct{})
	w.Handle("test:slow", asynq.HandlerFunc(func(ctx context.Context, _ *asynq.Task) error {
		close(started)
		time.Sleep(500 * time.Millisecond)
		close(finished)
		return nil
	}))
	stop := start(t, w)
	c := asynq.NewClient(w.RedisConnOpt())
	defer c.Close()
	if _, err := c.Enqueue(asynq.NewTask("test:slow", nil), asynq.Queue(queue)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(15 * time.Second):
		t.Fatal("task not started")
	}
	stop()
	select {
	case <-finished:
	default:
		t.Error("Run returned before the task in flight finished")
	}
}

func TestSchedulerEnqueues(t *testing.T) {
	w, queue := newTestWorker(t)
	ran := make(chan struct{}, 10)
	w.Handle("test:tick", asynq.HandlerFunc(func(context.Context, *asynq.Task) error {
		ran <- struct{}{}
		return nil
	}))
	if err := w.Schedule("@every 1s", asynq.NewTask("test:tick", nil), asynq.Queue(queue)); err != nil {
		t.Fatal(err)
	}
	if err := w.Schedule("not a cron line", asynq.NewTask("test:tick", nil)); err == nil {
		t.Error("Schedule accepted a bad cronspec")
	}
	start(t, w)
	select {
	case <-ran:
	case <-time.After(15 * time.Second):
		t.Fatal("scheduled task never ran")
	}
}

func TestRunFailsWithoutRedis(t *testing.T) {
	w, err := NewWorker(Options{RedisURL: "redis://127.0.0.1:1/0", Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Run(context.Background()); err == nil {
		t.Error("Run without Redis returned nil")
	}
	if _, err := NewWorker(Options{RedisURL: "http://x"}); err == nil {
		t.Error("NewWorker accepted an http URL")
	}
}

// TestHousekeepingPurgesOldArchivedTasks fails a task without retries (it is
// archived), then runs housekeeping as if a month had passed.
func TestHousekeepingPurgesOldArchivedTasks(t *testing.T) {
	w, queue := newTestWorker(t)
	w.Handle("test:fail", asynq.HandlerFunc(func(context.Context, *asynq.Task) error {
		return errors.New("always fails")
	}))
	start(t, w)
	c := asynq.NewClient(w.RedisConnOpt())
	defer c.Close()
	if _, err := c.Enqueue(asynq.NewTask("test:fail", nil), asynq.Queue(queue), asynq.MaxRetry(0)); err != nil {
		t.Fatal(err)
	}
	// A pending task archived by hand has no failure time and must be kept.
	kept, err := c.Enqueue(asynq.NewTask("test:other", nil), asynq.Queue(queue), asynq.ProcessIn(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	insp := asynq.NewInspector(w.RedisConnOpt())
	defer insp.Close()
	if err := insp.ArchiveTask(queue, kept.ID); err != nil {
		t.Fatal(err)
	}
	archived := func() int {
		info, err := insp.GetQueueInfo(queue)
		if err != nil {
			t.Fatal(err)
		}
		return info.Archived
	}
	deadline := time.Now().Add(15 * time.Second)
	for archived() < 2 {
		if time.Now().After(deadline) {
			t.Fatal("failed task was not archived")
		}
		time.Sleep(50 * time.Millisecond)
	}

	hk := &Housekeeping{Inspector: insp, Queues: []string{queue, "never-used-queue"}, Retention: DefaultArchiveRetention}
	if err := hk.ProcessTask(context.Background(), NewHousekeepingTask()); err != nil {
		t.Fatal(err)
	}
	if n := archived(); n != 2 {
		t.Fatalf("recent archived tasks deleted: %d left, want 2", n)
	}
	hk.Now = func() time.Time { return time.Now().Add(30 * 24 * time.Hour) }
	if err := hk.ProcessTask(context.Background(), NewHousekeepingTask()); err != nil {
		t.Fatal(err)
	}
	if n := archived(); n != 1 {
		t.Fatalf("after a month: %d archived tasks left, want 1 (the one without a failure)", n)
	}
	if _, err := insp.GetTaskInfo(queue, kept.ID); err != nil {
		t.Errorf("task archived by hand was deleted: %v", err)
	}
}

func TestRegisterHousekeeping(t *testing.T) {
	w, _ := newTestWorker(t)
	insp, err := RegisterHousekeeping(w, DefaultArchiveRetention)
	if err != nil {
		t.Fatal(err)
	}
	defer insp.Close()
	if task := NewHousekeepingTask(); task.Type() != TypeHousekeeping {
		t.Errorf("task type %q", task.Type())
	}
	// The handler is registered: the mux finds it.
	if _, pattern := w.mux.Handler(NewHousekeepingTask()); pattern != TypeHousekeeping {
		t.Errorf("no handler for %s (pattern %q)", TypeHousekeeping, pattern)
	}
}

// TestStrictPriority queues low-weight tasks first, then high-weight ones,
// on a worker of one slot with StrictPriority: every high one runs before
// any low one still pending.
func TestStrictPriority(t *testing.T) {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	hi, lo := "test-hi-"+hex.EncodeToString(b), "test-lo-"+hex.EncodeToString(b)
	w, err := NewWorker(Options{
		RedisURL: dbtest.RedisURL(t), Concurrency: 1, ShutdownTimeout: 5 * time.Second, StrictPriority: true,
		Queues: map[string]int{hi: 6, lo: 1}, Log: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	insp := asynq.NewInspector(w.RedisConnOpt())
	t.Cleanup(func() {
		_ = insp.DeleteQueue(hi, true)
		_ = insp.DeleteQueue(lo, true)
		_ = insp.Close()
	})
	order := make(chan string, 20)
	w.Handle("test:prio", asynq.HandlerFunc(func(_ context.Context, task *asynq.Task) error {
		order <- string(task.Payload())
		return nil
	}))
	c := asynq.NewClient(w.RedisConnOpt())
	defer c.Close()
	for i := range 5 {
		if _, err := c.Enqueue(asynq.NewTask("test:prio", []byte("lo")), asynq.Queue(lo), asynq.TaskID(fmt.Sprintf("%s-%d", lo, i))); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 5 {
		if _, err := c.Enqueue(asynq.NewTask("test:prio", []byte("hi")), asynq.Queue(hi), asynq.TaskID(fmt.Sprintf("%s-%d", hi, i))); err != nil {
			t.Fatal(err)
		}
	}
	start(t, w)
	var got []string
	for range 10 {
		select {
		case s := <-order:
			got = append(got, s)
		case <-time.After(20 * time.Second):
			t.Fatalf("only %d tasks ran: %v", len(got), got)
		}
	}
	if want := "hi hi hi hi hi lo lo lo lo lo"; strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s", got, want)
	}
}

// TestShutdownDrainsCancelledHandler runs a task longer than the shutdown
// timeout: its context is cancelled, and Run returns only after the handler
// did (the drain), with the task back in its queue.
func TestShutdownDrainsCancelledHandler(t *testing.T) {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	queue := "test-drain-" + hex.EncodeToString(b)
	w, err := NewWorker(Options{
		RedisURL: dbtest.RedisURL(t), Concurrency: 1, ShutdownTimeout: 300 * time.Millisecond, DrainTimeout: 5 * time.Second,
		Queues: map[string]int{queue: 1}, Log: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	insp := asynq.NewInspector(w.RedisConnOpt())
	t.Cleanup(func() { _ = insp.DeleteQueue(queue, true); _ = insp.Close() })
	started := make(chan struct{})
	var unwound atomic.Bool
	w.Handle("test:long", asynq.HandlerFunc(func(ctx context.Context, _ *asynq.Task) error {
		close(started)
		<-ctx.Done()
		time.Sleep(300 * time.Millisecond) // rolling back, say
		unwound.Store(true)
		return ctx.Err()
	}))
	c := asynq.NewClient(w.RedisConnOpt())
	defer c.Close()
	info, err := c.Enqueue(asynq.NewTask("test:long", nil), asynq.Queue(queue))
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, w)
	select {
	case <-started:
	case <-time.After(15 * time.Second):
		t.Fatal("task not started")
	}
	stop()
	if !unwound.Load() {
		t.Error("Run returned before the cancelled handler did")
	}
	if ti, err := insp.GetTaskInfo(queue, info.ID); err != nil || ti.State != asynq.TaskStatePending {
		t.Errorf("task after shutdown: %+v, %v; want it pending again", ti, err)
	}
}
