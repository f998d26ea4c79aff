package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/dbtest"
	"github.com/rebound-hq/rebound/internal/mailbox"
	"github.com/rebound-hq/rebound/internal/mailbox/mailboxtest"
	"github.com/rebound-hq/rebound/internal/secret"
	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/internal/tasks"
)

// These tests run the worker as real processes (go build of this package)
// against one PostgreSQL database, one Redis database and the private
// Dovecot, reached through a proxy per mailbox that records every IMAP
// session (open and close times) and can throttle the server's bytes.

// processRedisDB is the Redis database of the process tests: the worker
// processes serve the production queue names, which other packages' tests
// also use on the test database.
const processRedisDB = 13

// session is one IMAP connection through a mailbox's proxy.
type session struct{ start, end time.Time }

// imapProxy forwards one mailbox's connections to Dovecot and records them.
type imapProxy struct {
	ln       net.Listener
	target   string
	rate     int // server-to-client bytes per second; 0: unthrottled
	mu       sync.Mutex
	open     int
	maxOpen  int
	sessions []session
}

func startIMAPProxy(t *testing.T, target string, rate int) *imapProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &imapProxy{ln: ln, target: target, rate: rate}
	go p.serve()
	t.Cleanup(func() { ln.Close() })
	return p
}

func (p *imapProxy) port() int { return p.ln.Addr().(*net.TCPAddr).Port }

func (p *imapProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.forward(c)
	}
}

func (p *imapProxy) forward(c net.Conn) {
	start := time.Now()
	p.mu.Lock()
	p.open++
	p.maxOpen = max(p.maxOpen, p.open)
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.open--
		p.sessions = append(p.sessions, session{start, time.Now()})
		p.mu.Unlock()
	}()
	defer c.Close()
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer s.Close()
	done := make(chan struct{})
	go func() { io.Copy(s, c); s.Close(); close(done) }()
	if p.rate <= 0 {
		io.Copy(c, s)
	} else {
		buf := make([]byte, p.rate/20)
		for {
			n, err := s.Read(buf)
			if n > 0 {
				if _, werr := c.Write(buf[:n]); werr != nil {
					break
				}
				time.Sleep(time.Duration(n) * time.Second / time.Duration(p.rate))
			}
			if err != nil {
				break
			}
		}
	}
	c.Close()
	<-done
}

// stats returns the sessions so far and the most ever open at once.
func (p *imapProxy) stats() ([]session, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.sessions), p.maxOpen
}

// processEnv is what every worker process of a test shares.
type processEnv struct {
	bin     string
	db      *gorm.DB
	dbURL   string
	redis   asynq.RedisConnOpt
	redisU  string
	keys    string
	ws      int64
	svc     *mailbox.Service
	queue   *asynq.Client
	logsDir string
}

var buildOnce struct {
	sync.Once
	path string
	err  error
	dir  string
}

// workerBinary builds cmd/worker once per test process.
func workerBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rebound-worker-bin-")
		if err != nil {
			buildOnce.err = err
			return
		}
		buildOnce.dir = dir
		buildOnce.path = filepath.Join(dir, "worker")
		out, err := exec.Command("go", "build", "-o", buildOnce.path, ".").CombinedOutput()
		if err != nil {
			buildOnce.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildOnce.err != nil {
		t.Fatal(buildOnce.err)
	}
	return buildOnce.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildOnce.dir != "" {
		os.RemoveAll(buildOnce.dir)
	}
	os.Exit(code)
}

func newProcessEnv(t *testing.T) *processEnv {
	t.Helper()
	if testing.Short() {
		t.Skip("worker process tests skipped with -short")
	}
	e := &processEnv{bin: workerBinary(t), dbURL: dbtest.NewURL(t), logsDir: t.TempDir()}
	ctx := context.Background()
	db, err := store.Open(ctx, e.dbURL, store.OpenOptions{MaxConns: 8})
	if err != nil {
		t.Fatal(err)
	}
	e.db = db
	sqlDB, _ := db.DB()
	t.Cleanup(func() { sqlDB.Close() })

	u, err := url.Parse(dbtest.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + strconv.Itoa(processRedisDB)
	e.redisU = u.String()
	if e.redis, err = asynq.ParseRedisURI(e.redisU); err != nil {
		t.Fatal(err)
	}
	clearQueues(t, e.redis)
	t.Cleanup(func() { clearQueues(t, e.redis) })
	e.queue = asynq.NewClient(e.redis)
	t.Cleanup(func() { e.queue.Close() })

	key := make([]byte, secret.KeySize)
	for i := range key {
		key[i] = byte(i * 7)
	}
	e.keys = "k1:" + base64.StdEncoding.EncodeToString(key)
	kr, err := secret.ParseKeyring(e.keys, "")
	if err != nil {
		t.Fatal(err)
	}
	e.svc = &mailbox.Service{DB: db, Keyring: kr, Policy: &mailbox.Policy{AllowPrivateHosts: true}}
	if err := db.Raw(`INSERT INTO workspaces (name) VALUES ('processes') RETURNING id`).Scan(&e.ws).Error; err != nil {
		t.Fatal(err)
	}
	return e
}

func clearQueues(t *testing.T, opt asynq.RedisConnOpt) {
	insp := asynq.NewInspector(opt)
	defer insp.Close()
	for q := range tasks.DefaultQueues {
		if err := insp.DeleteQueue(q, true); err != nil && !errorsIsQueueNotFound(err) {
			t.Logf("clear queue %s: %v", q, err)
		}
	}
}

func errorsIsQueueNotFound(err error) bool { return errors.Is(err, asynq.ErrQueueNotFound) }

// addMailbox creates a mailbox of u reached through p.
func (e *processEnv) addMailbox(t *testing.T, u mailboxtest.DovecotUser, p *imapProxy) int64 {
	t.Helper()
	v, err := e.svc.Create(context.Background(), e.ws, mailbox.Input{
		Name:        u.User,
		Settings:    mailbox.Settings{Host: "127.0.0.1", Port: p.port(), TLS: mailbox.TLSNone, Username: u.User},
		Credentials: mailbox.Credentials{Password: u.Password},
	})
	if err != nil {
		t.Fatal(err)
	}
	return v.ID
}

// workerProc is one running worker process.
type workerProc struct {
	cmd  *exec.Cmd
	addr string
	done chan error
	log  string
}

// start runs a worker process with the shared settings and extra ones.
func (e *processEnv) start(t *testing.T, name string, extra ...string) *workerProc {
	t.Helper()
	addr := freeAddr(t)
	logPath := filepath.Join(e.logsDir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(e.bin)
	cmd.Env = append(os.Environ(),
		"DATABASE_URL="+e.dbURL, "REDIS_URL="+e.redisU, "SECRET_KEYS="+e.keys, "SECRET_ACTIVE_KEY_ID=k1",
		"ALLOW_PRIVATE_HOSTS=true", "WORKER_HTTP_ADDR="+addr, "LOG_LEVEL=info", "DATABASE_MAX_CONNS=10",
		"REDIS_SENTINEL_ADDRS=", "REDIS_CLUSTER_ADDRS=", "REDIS_SENTINEL_MASTER=")
	cmd.Env = append(cmd.Env, extra...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &workerProc{cmd: cmd, addr: addr, done: make(chan error, 1), log: logPath}
	go func() { w.done <- cmd.Wait(); f.Close() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-w.done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
		}
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			if len(b) > 4000 {
				b = b[len(b)-4000:]
			}
			t.Logf("%s log (tail):\n%s", name, b)
		}
	})
	// Ready once /readyz answers 200.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if code, _ := tryGet("http://" + addr + "/readyz"); code == 200 {
			return w
		}
		select {
		case err := <-w.done:
			b, _ := os.ReadFile(logPath)
			t.Fatalf("%s exited at start: %v\n%s", name, err, b)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not ready within 30s", name)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop sends SIGTERM and waits for the process to exit; it returns the exit
// time the exit took and the exit error.
func (w *workerProc) stop(t *testing.T) (time.Duration, error) {
	t.Helper()
	start := time.Now()
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-w.done:
		w.done <- err // for the cleanup
		return time.Since(start), err
	case <-time.After(60 * time.Second):
		t.Fatal("worker did not exit within 60s of SIGTERM")
		return 0, nil
	}
}

var httpClient = http.Client{Timeout: 5 * time.Second}

func tryGet(u string) (int, string) {
	resp, err := httpClient.Get(u)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// metricValue reads one sample of the worker's /metrics.
func (w *workerProc) metricValue(t *testing.T, sample string) float64 {
	t.Helper()
	code, body := tryGet("http://" + w.addr + "/metrics")
	if code != 200 {
		t.Fatalf("/metrics of %s = %d", w.addr, code)
	}
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if len(line) > len(sample) && line[:len(sample)] == sample && line[len(sample)] == ' ' {
			v, err := strconv.ParseFloat(line[len(sample)+1:], 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	return 0
}

type totals struct {
	Events, Raws, Seen, Bounces, Synced, Folders, LastUIDs int64
}

func (e *processEnv) totals(t *testing.T) totals {
	t.Helper()
	var x totals
	err := e.db.Raw(`SELECT
	    (SELECT count(*) FROM bounce_events WHERE workspace_id = ?) AS events,
	    (SELECT count(*) FROM raw_messages WHERE workspace_id = ?) AS raws,
	    (SELECT coalesce(sum(messages_seen), 0) FROM mailboxes WHERE workspace_id = ?) AS seen,
	    (SELECT coalesce(sum(bounces_recorded), 0) FROM mailboxes WHERE workspace_id = ?) AS bounces,
	    (SELECT count(*) FROM mailboxes WHERE workspace_id = ? AND last_sync_at IS NOT NULL) AS synced,
	    (SELECT count(*) FROM mailbox_folders WHERE workspace_id = ?) AS folders,
	    (SELECT coalesce(sum(last_uid), 0) FROM mailbox_folders WHERE workspace_id = ?) AS last_uids`,
		e.ws, e.ws, e.ws, e.ws, e.ws, e.ws, e.ws).Scan(&x).Error
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// idle reports whether the queues hold no pending, active or retrying task.
func (e *processEnv) idle(t *testing.T) bool {
	t.Helper()
	insp := asynq.NewInspector(e.redis)
	defer insp.Close()
	queues, err := insp.Queues()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range queues {
		info, err := insp.GetQueueInfo(q)
		if err != nil {
			t.Fatal(err)
		}
		if info.Pending+info.Active+info.Retry+info.Scheduled > 0 {
			return false
		}
	}
	return true
}

// waitFor polls cond every 100ms for up to d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, d)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// enqueueRound queues `extra` copies of every mailbox's sync without the
// unique option, side by side in the queue (as when the uniqueness TTL has
// lapsed: several workers take copies of one mailbox at once and race for
// its lock), then a sync of every mailbox the way the scheduler does (claim,
// unique task).
func (e *processEnv) enqueueRound(t *testing.T, ids []int64, extra int) {
	t.Helper()
	ctx := context.Background()
	for _, id := range ids {
		for range extra {
			task := asynq.NewTask(tasks.TypeMailboxSync, []byte(fmt.Sprintf(`{"mailbox_id":%d}`, id)))
			if _, err := e.queue.Enqueue(task, asynq.Queue(tasks.QueueSyncs), asynq.MaxRetry(0)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The workers' own scheduling task (every minute on the clock) may
	// claim some new mailboxes first; each is claimed once either way.
	sched := &tasks.Scheduler{DB: e.db, Queue: e.queue, Now: func() time.Time { return time.Now().Add(24 * time.Hour) }}
	n, err := sched.EnqueueDue(ctx)
	if err != nil || n > len(ids) {
		t.Fatalf("EnqueueDue = %d, %v; want at most %d", n, err, len(ids))
	}
}

// TestThreeWorkerProcesses runs 3 worker processes on 50 mailboxes, in two
// rounds of new mail, each round queuing every sync three times: every
// mailbox synced, never two IMAP sessions of one mailbox at once, exact
// event, message and checkpoint counts, and work spread over the three.
func TestThreeWorkerProcesses(t *testing.T) {
	const (
		mailboxes = 50
		first     = 20 // messages per mailbox in round 1 (10 bounces)
		second    = 10 // round 2 (5 bounces)
	)
	e := newProcessEnv(t)
	began := time.Now()
	base := time.Now().Add(-240 * time.Hour)
	var users []mailboxtest.DovecotUser
	var proxies []*imapProxy
	var ids []int64
	for i := range mailboxes {
		u := mailboxtest.Dovecot(t)
		// Throttled to 200 kB/s so that a sync lasts long enough for the
		// copies of its task to run into it.
		p := startIMAPProxy(t, u.Addr, 200_000)
		// Distinct dates make every mailbox's messages distinct (the
		// workspace stores a message once by content).
		mailboxtest.Append(t, u.Client(t), "INBOX", mailboxtest.Mix(first, base.Add(time.Duration(i)*time.Hour)))
		users, proxies, ids = append(users, u), append(proxies, p), append(ids, e.addMailbox(t, u, p))
	}
	t.Logf("setup: %d mailboxes, %d messages in %v", mailboxes, mailboxes*first, time.Since(began).Round(time.Millisecond))

	var procs []*workerProc
	for i := range 3 {
		procs = append(procs, e.start(t, fmt.Sprintf("worker%d", i), "WORKER_CONCURRENCY=4", "SHUTDOWN_TIMEOUT=10s"))
	}

	round := func(n int, want totals) {
		t.Helper()
		start := time.Now()
		e.enqueueRound(t, ids, 2)
		waitFor(t, 60*time.Second, fmt.Sprintf("round %d", n), func() bool {
			got := e.totals(t)
			return got.LastUIDs == want.LastUIDs && got.Synced == mailboxes && e.idle(t)
		})
		if got := e.totals(t); got != want {
			t.Fatalf("round %d: totals %+v, want %+v", n, got, want)
		}
		t.Logf("round %d: %d syncs queued (%d copies side by side, then %d unique) done in %v", n, 3*mailboxes,
			2*mailboxes, mailboxes, time.Since(start).Round(time.Millisecond))
	}
	round(1, totals{Events: mailboxes * first / 2, Raws: mailboxes * first / 2, Seen: mailboxes * first,
		Bounces: mailboxes * first / 2, Synced: mailboxes, Folders: mailboxes, LastUIDs: mailboxes * first})

	for i, u := range users {
		mailboxtest.Append(t, u.Client(t), "INBOX", mailboxtest.Mix(second, base.Add(time.Duration(i)*time.Hour+30*time.Minute)))
	}
	total := first + second
	round(2, totals{Events: mailboxes * (first + second) / 2, Raws: mailboxes * (first + second) / 2, Seen: mailboxes * int64(total),
		Bounces: mailboxes * (first + second) / 2, Synced: mailboxes, Folders: mailboxes, LastUIDs: mailboxes * int64(total)})

	// Never two sessions of one mailbox at once, and every mailbox had at
	// least one session per round (once the proxies saw every close).
	waitFor(t, 10*time.Second, "IMAP sessions closed", func() bool {
		for _, p := range proxies {
			p.mu.Lock()
			open := p.open
			p.mu.Unlock()
			if open != 0 {
				return false
			}
		}
		return true
	})
	var sessions int
	for i, p := range proxies {
		ss, maxOpen := p.stats()
		if maxOpen != 1 {
			t.Errorf("mailbox %d: %d IMAP sessions open at once", ids[i], maxOpen)
		}
		slices.SortFunc(ss, func(a, b session) int { return a.start.Compare(b.start) })
		for j := 1; j < len(ss); j++ {
			if ss[j].start.Before(ss[j-1].end) {
				t.Errorf("mailbox %d: session %d [%v, %v] overlaps [%v, %v]", ids[i], j,
					ss[j].start.Format(time.StampMicro), ss[j].end.Format(time.StampMicro),
					ss[j-1].start.Format(time.StampMicro), ss[j-1].end.Format(time.StampMicro))
			}
		}
		if len(ss) < 2 {
			t.Errorf("mailbox %d: %d IMAP sessions, want at least one per round", ids[i], len(ss))
		}
		sessions += len(ss)
	}

	// Every process did part of the work (asynq spreads the tasks).
	var ok, skipped float64
	for i, w := range procs {
		o := w.metricValue(t, `rebound_mailbox_syncs_total{outcome="ok"}`)
		s := w.metricValue(t, `rebound_mailbox_syncs_total{outcome="skipped"}`)
		if o == 0 {
			t.Errorf("worker%d ran no sync", i)
		}
		t.Logf("worker%d: %v syncs ok, %v skipped (lock held by another)", i, o, s)
		ok, skipped = ok+o, skipped+s
	}
	if int(ok) != sessions || ok+skipped != 2*3*mailboxes {
		t.Errorf("syncs ok %v (IMAP sessions %d), skipped %v; want ok = sessions and ok+skipped = %d tasks",
			ok, sessions, skipped, 2*3*mailboxes)
	}
	t.Logf("%d IMAP sessions over %d mailboxes, none overlapping; total %v", sessions, mailboxes, time.Since(began).Round(time.Millisecond))
}

// TestSIGTERMDuringSync stops a worker process with SIGTERM in the middle
// of a (throttled) sync, then runs a new process: the first leaves whole
// batches committed with their checkpoint and exact counters, the second
// finishes; nothing is lost or recorded twice.
func TestSIGTERMDuringSync(t *testing.T) {
	const total = 2000 // 1,000 bounces, four batches of 500
	e := newProcessEnv(t)
	u := mailboxtest.Dovecot(t)
	mailboxtest.Append(t, u.Client(t), "INBOX", mailboxtest.Mix(total, time.Now()))
	p := startIMAPProxy(t, u.Addr, 400_000) // about 7s for the whole mailbox
	id := e.addMailbox(t, u, p)
	lastUID := func() int64 {
		var n int64
		e.db.Raw(`SELECT coalesce(max(last_uid), 0) FROM mailbox_folders WHERE mailbox_id = ?`, id).Scan(&n)
		return n
	}

	w := e.start(t, "first", "SHUTDOWN_TIMEOUT=1s")
	// (Unless the worker's scheduling task queued it first.)
	if _, err := tasks.EnqueueSync(context.Background(), e.queue, id); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "first batch committed", func() bool { return lastUID() > 0 })
	took, err := w.stop(t)
	if err != nil {
		t.Fatalf("worker exit after SIGTERM: %v", err)
	}
	cut := lastUID()
	got := e.totals(t)
	var m struct {
		Status              string
		ConsecutiveFailures int
		NextSyncAt          time.Time
		SyncStartedAt       *time.Time
	}
	if err := e.db.Raw(`SELECT status, consecutive_failures, next_sync_at, sync_started_at FROM mailboxes WHERE id = ?`, id).Scan(&m).Error; err != nil {
		t.Fatal(err)
	}
	t.Logf("SIGTERM after UID %d of %d: exit in %v; totals %+v", cut, total, took.Round(time.Millisecond), got)
	if cut <= 0 || cut >= total || cut%500 != 0 {
		t.Fatalf("checkpoint after SIGTERM at UID %d: want whole batches of 500, short of %d", cut, total)
	}
	if got.Seen != cut || got.Events != cut/2 || got.Raws != cut/2 || got.Bounces != cut/2 {
		t.Fatalf("after SIGTERM at UID %d: totals %+v; want exactly the committed batches", cut, got)
	}
	if m.Status != store.MailboxActive || m.ConsecutiveFailures != 0 || m.SyncStartedAt != nil || m.NextSyncAt.After(time.Now()) {
		t.Fatalf("mailbox after the interrupted sync: %+v; want active, no failure, due now", m)
	}

	// The task went back to the queue; a new process takes it over.
	e.start(t, "second")
	waitFor(t, 60*time.Second, "sync finished by the second process", func() bool { return lastUID() == total && e.idle(t) })
	want := totals{Events: total / 2, Raws: total / 2, Seen: total, Bounces: total / 2, Synced: 1, Folders: 1, LastUIDs: total}
	if got := e.totals(t); got != want {
		t.Fatalf("after the second process: %+v, want %+v", got, want)
	}
	if _, maxOpen := p.stats(); maxOpen != 1 {
		t.Errorf("%d IMAP sessions open at once", maxOpen)
	}
}

// TestIMAPProxySeesOverlap checks the instrument: two sessions open at
// once through one proxy are reported.
func TestIMAPProxySeesOverlap(t *testing.T) {
	target, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	go func() {
		for {
			c, err := target.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(io.Discard, c); c.Close() }()
		}
	}()
	p := startIMAPProxy(t, target.Addr().String(), 0)
	a, err := net.Dial("tcp", p.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	b, err := net.Dial("tcp", p.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	a.Close()
	b.Close()
	waitFor(t, 5*time.Second, "sessions closed", func() bool { ss, _ := p.stats(); return len(ss) == 2 })
	if _, maxOpen := p.stats(); maxOpen != 2 {
		t.Fatalf("maxOpen = %d, want 2", maxOpen)
	}
}
