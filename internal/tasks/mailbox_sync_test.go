package tasks

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/dbtest"
	"github.com/rebound-hq/rebound/internal/mailbox"
	"github.com/rebound-hq/rebound/internal/mailbox/mailboxtest"
	"github.com/rebound-hq/rebound/internal/secret"
	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/internal/tracking"
)

type fixture struct {
	db     *gorm.DB
	ws     int64
	svc    *mailbox.Service
	syncer *Syncer
}

func newFixture(tb testing.TB) *fixture {
	tb.Helper()
	db := dbtest.New(tb)
	var ws int64
	if err := db.Raw(`INSERT INTO workspaces (name) VALUES ('test') RETURNING id`).Scan(&ws).Error; err != nil {
		tb.Fatal(err)
	}
	kr, err := secret.NewKeyring(map[string][]byte{"k1": make([]byte, secret.KeySize)}, "k1")
	if err != nil {
		tb.Fatal(err)
	}
	svc := &mailbox.Service{DB: db, Keyring: kr, Policy: &mailbox.Policy{AllowPrivateHosts: true, IOTimeout: 30 * time.Second}}
	return &fixture{db: db, ws: ws, svc: svc, syncer: &Syncer{DB: db, Mailbox: svc, Tracking: tracking.New(db, tracking.Options{})}}
}

func (f *fixture) createMailbox(tb testing.TB, u mailboxtest.DovecotUser, password string) int64 {
	tb.Helper()
	ap := netip.MustParseAddrPort(u.Addr)
	v, err := f.svc.Create(context.Background(), f.ws, mailbox.Input{
		Name:        u.User,
		Settings:    mailbox.Settings{Host: ap.Addr().String(), Port: int(ap.Port()), TLS: mailbox.TLSNone, Username: u.User},
		Credentials: mailbox.Credentials{Password: password},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return v.ID
}

// createUnreachable creates a mailbox at a loopback port nobody listens
// on (1, or 1000 and up in tests needing several).
func (f *fixture) createUnreachable(tb testing.TB, port int) int64 {
	tb.Helper()
	v, err := f.svc.Create(context.Background(), f.ws, mailbox.Input{Settings: mailbox.Settings{Host: "127.0.0.1", Port: port, TLS: mailbox.TLSNone, Username: "u"}, Credentials: mailbox.Credentials{Password: "p"}})
	if err != nil {
		tb.Fatal(err)
	}
	return v.ID
}

func (f *fixture) count(tb testing.TB, q string, args ...any) int64 {
	tb.Helper()
	var n int64
	if err := f.db.Raw(q, args...).Scan(&n).Error; err != nil {
		tb.Fatal(err)
	}
	return n
}

// TestSyncMailboxEndToEnd syncs 1,000 Dovecot messages (500 DSNs) into
// PostgreSQL through tracking: exact event count, mailbox state, flags
// unchanged, and a second sync that adds nothing.
func TestSyncMailboxEndToEnd(t *testing.T) {
	u := mailboxtest.Dovecot(t)
	f := newFixture(t)
	admin := u.Client(t)
	mailboxtest.Append(t, admin, "INBOX", mailboxtest.Mix(1000, time.Now()))
	before := fmt.Sprint(mailboxtest.Flags(t, admin, "INBOX"))
	id := f.createMailbox(t, u, u.Password)
	ctx := context.Background()

	st, err := f.syncer.SyncMailbox(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if st.Seen != 1000 || st.Bounces != 500 {
		var rows []struct {
			DecodeStatus string
			N            int
		}
		f.db.Raw(`SELECT decode_status, count(*) AS n FROM raw_messages GROUP BY 1`).Scan(&rows)
		t.Fatalf("stats %+v; want 1000 seen, 500 bounces; raw messages %+v, %d events", st, rows,
			f.count(t, `SELECT count(*) FROM bounce_events`))
	}
	if n := f.count(t, `SELECT count(*) FROM bounce_events WHERE workspace_id = ?`, f.ws); n != 500 {
		t.Fatalf("%d bounce events, want 500", n)
	}
	v, err := f.svc.Get(ctx, f.ws, id)
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != store.MailboxActive || v.MessagesSeen != 1000 || v.BouncesRecorded != 500 || v.LastSyncAt == nil || v.LastError != "" || v.NextSyncAt == nil {
		t.Fatalf("mailbox state after sync: %+v", v)
	}
	if d := v.NextSyncAt.Sub(*v.LastSyncAt); d < 4*time.Minute || d > 6*time.Minute {
		t.Fatalf("next sync in %v, want about 5 minutes", d)
	}
	if after := fmt.Sprint(mailboxtest.Flags(t, admin, "INBOX")); after != before {
		t.Fatal("flags changed by sync")
	}

	st, err = f.syncer.SyncMailbox(ctx, id)
	if err != nil || st.Seen != 0 || st.Bounces != 0 {
		t.Fatalf("second sync: %+v, %v", st, err)
	}
	if n := f.count(t, `SELECT count(*) FROM bounce_events WHERE workspace_id = ?`, f.ws); n != 500 {
		t.Fatalf("%d bounce events after second sync, want 500", n)
	}
	if n := f.count(t, `SELECT last_uid FROM mailbox_folders WHERE mailbox_id = ? AND name = 'INBOX'`, id); n != 1000 {
		t.Fatalf("checkpoint last_uid = %d, want 1000", n)
	}
}

// TestSyncMailboxDroppedConnection cuts the IMAP connection in the middle
// of a body fetch, then syncs again over a sound one: the database ends
// with exactly one event per bounce and exact mailbox counters.
func TestSyncMailboxDroppedConnection(t *testing.T) {
	u := mailboxtest.Dovecot(t)
	f := newFixture(t)
	f.syncer.Sync.BatchSize = 100
	mailboxtest.Append(t, u.Client(t), "INBOX", mailboxtest.Mix(1000, time.Now()))
	proxy := mailboxtest.StartDropProxy(t, u.Addr, 600_000)
	cut := u
	cut.Addr = proxy.Addr()
	id := f.createMailbox(t, cut, u.Password)
	ctx := context.Background()

	st, err := f.syncer.SyncMailbox(ctx, id)
	if err == nil || errors.Is(err, asynq.SkipRetry) {
		t.Fatalf("sync through a cut connection = %+v, %v; want a retryable error", st, err)
	}
	v, _ := f.svc.Get(ctx, f.ws, id)
	events := f.count(t, `SELECT count(*) FROM bounce_events WHERE workspace_id = ?`, f.ws)
	if v.Status != store.MailboxError || v.MessagesSeen == 0 || v.MessagesSeen >= 1000 || events != v.BouncesRecorded || v.LastError == "" {
		t.Fatalf("after the cut: %+v, %d events", v, events)
	}
	t.Logf("cut after %d messages, %d events: %s", v.MessagesSeen, events, v.LastError)

	ap := netip.MustParseAddrPort(u.Addr)
	settings := v.Settings
	settings.Port = int(ap.Port())
	if _, err := f.svc.Update(ctx, f.ws, id, mailbox.Patch{Settings: &settings}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.syncer.SyncMailbox(ctx, id); err != nil {
		t.Fatal(err)
	}
	v, _ = f.svc.Get(ctx, f.ws, id)
	events = f.count(t, `SELECT count(*) FROM bounce_events WHERE workspace_id = ?`, f.ws)
	raws := f.count(t, `SELECT count(*) FROM raw_messages WHERE workspace_id = ?`, f.ws)
	if events != 500 || raws != 500 || v.MessagesSeen != 1000 || v.BouncesRecorded != 500 || v.Status != store.MailboxActive {
		t.Fatalf("after resume: %d events, %d raw messages, state %+v; want 500, 500, 1000 seen", events, raws, v)
	}
}

// TestSyncMailboxOneAtATime starts two syncs of one mailbox at once: one
// runs, the other finds the advisory lock taken and does nothing.
func TestSyncMailboxOneAtATime(t *testing.T) {
	u := mailboxtest.Dovecot(t)
	f := newFixture(t)
	mailboxtest.Append(t, u.Client(t), "INBOX", mailboxtest.Mix(400, time.Now()))
	id := f.createMailbox(t, u, u.Password)
	type result struct {
		st  mailbox.Stats
		err error
	}
	ch := make(chan result, 2)
	start := make(chan struct{})
	for range 2 {
		go func() {
			<-start
			st, err := f.syncer.SyncMailbox(context.Background(), id)
			ch <- result{st, err}
		}()
	}
	close(start)
	r1, r2 := <-ch, <-ch
	if r1.err != nil || r2.err != nil {
		t.Fatal(r1.err, r2.err)
	}
	if r1.st.Seen+r2.st.Seen != 400 || r1.st.Bounces+r2.st.Bounces != 200 {
		t.Fatalf("two concurrent syncs saw %d+%d messages; want 400 in all (one sync)", r1.st.Seen, r2.st.Seen)
	}
	if n := f.count(t, `SELECT count(*) FROM bounce_events WHERE workspace_id = ?`, f.ws); n != 200 {
		t.Fatalf("%d events, want 200", n)
	}
}

func TestSyncMailboxAuthError(t *testing.T) {
	u := mailboxtest.Dovecot(t)
	f := newFixture(t)
	ctx := context.Background()
	id := f.createMailbox(t, u, "wrong password")

	_, err := f.syncer.SyncMailbox(ctx, id)
	if !errors.Is(err, asynq.SkipRetry) || !errors.Is(err, mailbox.ErrAuth) {
		t.Fatalf("sync with a wrong password = %v; want ErrAuth and SkipRetry", err)
	}
	v, _ := f.svc.Get(ctx, f.ws, id)
	if v.Status != store.MailboxAuthError || v.LastError == "" || v.ConsecutiveFailures != 1 {
		t.Fatalf("state after auth failure: %+v", v)
	}
	// Stopped: neither the scheduler nor a queued task syncs it.
	if ids, err := store.ClaimDueMailboxes(ctx, f.db, time.Now().Add(24*time.Hour), time.Minute, 10); err != nil || len(ids) != 0 {
		t.Fatalf("claimed %v, %v; an auth_error mailbox must not be due", ids, err)
	}
	if st, err := f.syncer.SyncMailbox(ctx, id); err != nil || st.Seen != 0 {
		t.Fatalf("sync of auth_error mailbox: %+v, %v", st, err)
	}
	// New credentials make it active again.
	creds := mailbox.Credentials{Password: u.Password}
	if v, err = f.svc.Update(ctx, f.ws, id, mailbox.Patch{Credentials: &creds}); err != nil || v.Status != store.MailboxActive {
		t.Fatalf("update credentials: %+v, %v", v, err)
	}
	if _, err := f.syncer.SyncMailbox(ctx, id); err != nil {
		t.Fatal(err)
	}
}

func TestSyncMailboxNetworkErrorBacksOff(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	id := f.createUnreachable(t, 1)
	var gaps []time.Duration
	for range 3 {
		_, err := f.syncer.SyncMailbox(ctx, id)
		if err == nil || errors.Is(err, asynq.SkipRetry) {
			t.Fatalf("network failure = %v; want a retryable error", err)
		}
		got, _ := f.svc.Get(ctx, f.ws, id)
		if got.Status != store.MailboxError {
			t.Fatalf("status %q after network failure", got.Status)
		}
		gaps = append(gaps, got.NextSyncAt.Sub(*got.LastSyncAt))
	}
	if !(gaps[0] < gaps[1] && gaps[1] < gaps[2]) || gaps[0] < 9*time.Minute {
		t.Fatalf("backoff gaps %v; want growing from about 10 minutes", gaps)
	}
	// Still scheduled (status error is retried by the scheduler).
	if ids, _ := store.ClaimDueMailboxes(ctx, f.db, time.Now().Add(24*time.Hour), time.Minute, 10); len(ids) != 1 {
		t.Fatalf("claimed %v; a failing mailbox stays scheduled", ids)
	}
}

func TestSyncMailboxLockedAndGone(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	id := f.createUnreachable(t, 1)
	unlock, err := store.LockMailboxSync(ctx, f.db, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.LockMailboxSync(ctx, f.db, id); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("second lock = %v, want ErrLocked", err)
	}
	if _, err := f.syncer.SyncMailbox(ctx, id); err != nil {
		t.Fatalf("sync while locked = %v, want a silent skip", err)
	}
	if got, _ := f.svc.Get(ctx, f.ws, id); got.LastSyncAt != nil {
		t.Fatal("sync ran while another held the lock")
	}
	unlock()
	if err := f.svc.Delete(ctx, f.ws, id); err != nil {
		t.Fatal(err)
	}
	if _, err := f.syncer.SyncMailbox(ctx, id); err != nil {
		t.Fatalf("sync of deleted mailbox = %v", err)
	}
}

func TestHandleBadPayload(t *testing.T) {
	s := &Syncer{}
	for _, p := range []string{"", "{", `{"mailbox_id":0}`, `{"mailbox_id":"x"}`} {
		err := s.HandleMailboxSync(context.Background(), asynq.NewTask(TypeMailboxSync, []byte(p)))
		if !errors.Is(err, asynq.SkipRetry) {
			t.Errorf("payload %q: %v, want SkipRetry", p, err)
		}
	}
}

func redisOpt(t testing.TB) asynq.RedisConnOpt {
	t.Helper()
	url := dbtest.RedisURL(t)
	opt, err := asynq.ParseRedisURI(url)
	if err != nil {
		t.Fatal(err)
	}
	return opt
}

func TestEnqueueAndSchedule(t *testing.T) {
	opt := redisOpt(t)
	client := asynq.NewClient(opt)
	defer client.Close()
	insp := asynq.NewInspector(opt)
	defer insp.Close()
	f := newFixture(t)
	ctx := context.Background()
	var ids []int64
	for i := range 2 {
		ids = append(ids, f.createUnreachable(t, 1000+i))
	}
	cleanup := func() {
		// Other packages' tests share this Redis database; remove only
		// this test's tasks.
		for _, id := range ids {
			tasks, _ := insp.ListPendingTasks(QueueSyncs)
			for _, ti := range tasks {
				if string(ti.Payload) == fmt.Sprintf(`{"mailbox_id":%d}`, id) {
					insp.DeleteTask(QueueSyncs, ti.ID)
				}
			}
		}
	}
	cleanup()
	t.Cleanup(cleanup)

	sched := &Scheduler{DB: f.db, Queue: client}
	n, err := sched.EnqueueDue(ctx)
	if err != nil || n != 2 {
		t.Fatalf("EnqueueDue = %d, %v; want 2", n, err)
	}
	if n, err := sched.EnqueueDue(ctx); err != nil || n != 0 {
		t.Fatalf("second EnqueueDue = %d, %v; want 0 (claimed)", n, err)
	}
	// The API's trigger while queued: not an error, not queued twice.
	queued, err := EnqueueSync(ctx, client, ids[0])
	if err != nil || queued {
		t.Fatalf("EnqueueSync while queued = %v, %v; want false, nil", queued, err)
	}
	// Once due again (clock moved past the hold) the unique task still
	// blocks a duplicate.
	sched.Now = func() time.Time { return time.Now().Add(time.Hour) }
	if n, err := sched.EnqueueDue(ctx); err != nil || n != 0 {
		t.Fatalf("EnqueueDue with tasks still queued = %d, %v; want 0", n, err)
	}
}

func TestRetryDelayGrows(t *testing.T) {
	prev := time.Duration(0)
	for n := range 4 {
		d := RetryDelay(n, nil, nil)
		if d <= prev || d > time.Hour+12*time.Minute {
			t.Fatalf("RetryDelay(%d) = %v after %v", n, d, prev)
		}
		prev = d
	}
}

// TestWorkerRunsMailboxSync runs the real worker with the mailbox handlers:
// the scheduler's claim enqueues the due mailbox and the worker syncs it.
func TestWorkerRunsMailboxSync(t *testing.T) {
	u := mailboxtest.Dovecot(t)
	f := newFixture(t)
	w, queue := newTestWorker(t)
	client := asynq.NewClient(w.RedisConnOpt())
	defer client.Close()
	sched := &Scheduler{DB: f.db, Queue: client, Options: []asynq.Option{asynq.Queue(queue)}}
	if err := RegisterMailboxSync(w, f.syncer, sched); err != nil {
		t.Fatal(err)
	}
	mailboxtest.Append(t, u.Client(t), "INBOX", mailboxtest.Mix(100, time.Now()))
	id := f.createMailbox(t, u, u.Password)
	start(t, w)

	ctx := context.Background()
	if n, err := sched.EnqueueDue(ctx); err != nil || n != 1 {
		t.Fatalf("EnqueueDue = %d, %v", n, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		v, err := f.svc.Get(ctx, f.ws, id)
		if err != nil {
			t.Fatal(err)
		}
		if v.LastSyncAt != nil {
			if v.Status != store.MailboxActive || v.MessagesSeen != 100 || v.BouncesRecorded != 50 {
				t.Fatalf("after the worker's sync: %+v", v)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the worker did not sync the mailbox within 30s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := f.count(t, `SELECT count(*) FROM bounce_events WHERE workspace_id = ?`, f.ws); n != 50 {
		t.Fatalf("%d events, want 50", n)
	}
}

// TestEnqueueDueFailureUndoesClaims has the scheduler enqueue into a Redis
// that is not there: every claimed mailbox of the batch, not only the one
// whose enqueue failed, is due again at once.
func TestEnqueueDueFailureUndoesClaims(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for i := range 3 {
		f.createUnreachable(t, 1000+i)
	}
	// A loopback port nobody listens on.
	client := asynq.NewClient(asynq.RedisClientOpt{Addr: "127.0.0.1:1", DialTimeout: time.Second})
	defer client.Close()
	sched := &Scheduler{DB: f.db, Queue: client}
	if n, err := sched.EnqueueDue(ctx); err == nil || n != 0 {
		t.Fatalf("EnqueueDue without Redis = %d, %v; want 0 and an error", n, err)
	}
	if ids, err := store.ClaimDueMailboxes(ctx, f.db, time.Now(), time.Minute, 10); err != nil || len(ids) != 3 {
		t.Fatalf("claimed %v, %v after a failed round; want all 3 mailboxes due again", ids, err)
	}
}

// cancellingEnqueuer ends the scheduler's context before it enqueues, as a
// worker shutdown in the middle of a round does.
type cancellingEnqueuer struct {
	Enqueuer
	cancel context.CancelFunc
}

func (c cancellingEnqueuer) EnqueueContext(ctx context.Context, t *asynq.Task, opts ...asynq.Option) (*asynq.TaskInfo, error) {
	c.cancel()
	return c.Enqueuer.EnqueueContext(ctx, t, opts...)
}

// TestEnqueueDueCancelledUndoesClaims has the scheduler's context end in
// the middle of a round: the claims are undone all the same.
func TestEnqueueDueCancelledUndoesClaims(t *testing.T) {
	f := newFixture(t)
	for i := range 3 {
		f.createUnreachable(t, 1000+i)
	}
	opt := redisOpt(t)
	client := asynq.NewClient(opt)
	defer client.Close()
	// A queue of its own, should an enqueue get through the ended context.
	const queue = "test-enqueue-cancelled"
	t.Cleanup(func() {
		insp := asynq.NewInspector(opt)
		_ = insp.DeleteQueue(queue, true)
		_ = insp.Close()
	})
	ctx, cancel := context.WithCancel(context.Background())
	sched := &Scheduler{DB: f.db, Queue: cancellingEnqueuer{client, cancel}, Options: []asynq.Option{asynq.Queue(queue)}}
	if n, err := sched.EnqueueDue(ctx); err == nil || n != 0 {
		t.Fatalf("EnqueueDue with its context ended = %d, %v; want 0 and an error", n, err)
	}
	if ids, err := store.ClaimDueMailboxes(context.Background(), f.db, time.Now(), time.Minute, 10); err != nil || len(ids) != 3 {
		t.Fatalf("claimed %v, %v after a cancelled round; want all 3 mailboxes due again", ids, err)
	}
}
