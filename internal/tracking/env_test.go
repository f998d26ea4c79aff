package tracking_test

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/dbtest"
	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/internal/tracking"
)

// env is a migrated database with one workspace and a settable clock.
type env struct {
	t   testing.TB
	db  *gorm.DB
	svc *tracking.Service
	ws  int64
	ctx context.Context

	mu  sync.Mutex
	now time.Time
}

func newEnv(t testing.TB) *env {
	t.Helper()
	e := &env{t: t, db: dbtest.New(t), ctx: context.Background(),
		now: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	e.svc = tracking.New(e.db, tracking.Options{Now: e.clock})
	e.ws = e.workspace("acme")
	return e
}

func (e *env) clock() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now
}

func (e *env) advance(d time.Duration) {
	e.mu.Lock()
	e.now = e.now.Add(d)
	e.mu.Unlock()
}

func (e *env) create(v any) {
	e.t.Helper()
	if err := e.db.Create(v).Error; err != nil {
		e.t.Fatalf("create %T: %v", v, err)
	}
}

func (e *env) workspace(name string) int64 {
	w := &store.Workspace{Name: name}
	e.create(w)
	return w.ID
}

func (e *env) campaign(ws int64, name string, ext *string) int64 {
	c := &store.Campaign{WorkspaceID: ws, Name: name, ExternalID: ext, Status: "active"}
	e.create(c)
	return c.ID
}

func (e *env) lead(ws, campaign int64, email string, ext *string) int64 {
	l := &store.Lead{WorkspaceID: ws, CampaignID: campaign, Email: email, ExternalID: ext, Status: store.LeadActive}
	e.create(l)
	return l.ID
}

func (e *env) mailbox(ws int64) int64 {
	m := &store.Mailbox{WorkspaceID: ws, Host: "imap.example.org", Port: 993, TLSMode: "tls", AuthKind: "password",
		Username: "u", SecretSealed: []byte{1}, SecretKeyID: "k1", Folders: store.StringArray{"INBOX"},
		Status: store.MailboxActive, SyncIntervalSeconds: 300, ProcessedAction: "none"}
	e.create(m)
	return m.ID
}

func (e *env) getLead(id int64) store.Lead {
	e.t.Helper()
	var l store.Lead
	if err := e.db.First(&l, id).Error; err != nil {
		e.t.Fatalf("lead %d: %v", id, err)
	}
	return l
}

func (e *env) count(table string, where string, args ...any) int64 {
	e.t.Helper()
	var n int64
	q := e.db.Table(table)
	if where != "" {
		q = q.Where(where, args...)
	}
	if err := q.Count(&n).Error; err != nil {
		e.t.Fatalf("count %s: %v", table, err)
	}
	return n
}

func (e *env) record(in tracking.Incoming) tracking.Outcome {
	e.t.Helper()
	if in.WorkspaceID == 0 {
		in.WorkspaceID = e.ws
	}
	out, err := e.svc.Record(e.ctx, in)
	if err != nil {
		e.t.Fatalf("Record: %v", err)
	}
	return out
}

// checkCounters fails the test when the stored counters of ws differ from
// an aggregation written from scratch over events and sent messages.
func (e *env) checkCounters(ws int64) *store.CounterSnapshot {
	e.t.Helper()
	stored, err := store.StoredCounters(e.ctx, e.db, ws)
	if err != nil {
		e.t.Fatal(err)
	}
	agg, err := store.AggregateCounters(e.ctx, e.db, ws)
	if err != nil {
		e.t.Fatal(err)
	}
	if !reflect.DeepEqual(stored.Campaigns, agg.Campaigns) {
		e.t.Errorf("campaign counters:\nstored    %+v\naggregate %+v", stored.Campaigns, agg.Campaigns)
	}
	if !reflect.DeepEqual(stored.Dimensions, agg.Dimensions) {
		e.t.Errorf("dimension counters:\nstored    %+v\naggregate %+v", stored.Dimensions, agg.Dimensions)
	}
	if !reflect.DeepEqual(stored.Labels, agg.Labels) {
		e.t.Errorf("label counters:\nstored    %+v\naggregate %+v", stored.Labels, agg.Labels)
	}
	if !reflect.DeepEqual(stored.Periods, agg.Periods) {
		e.t.Errorf("period counters:\nstored    %+v\naggregate %+v", stored.Periods, agg.Periods)
	}
	return stored
}

// noAutovacuum turns autovacuum off for every table of the test database:
// benchmarks write enough to wake it, and an autovacuum worker still
// connected when the test ends makes dbtest's DROP DATABASE ... WITH (FORCE)
// fail (it may not terminate that worker). It also keeps the measurement
// free of vacuum noise.
func (e *env) noAutovacuum() {
	e.t.Helper()
	var tables []string
	// Plain tables and partitions (relkind r): a partitioned parent takes no
	// storage parameters.
	if err := e.db.Raw("SELECT relname FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace").Scan(&tables).Error; err != nil {
		e.t.Fatal(err)
	}
	for _, t := range tables {
		if err := e.db.Exec(`ALTER TABLE "` + t + `" SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)`).Error; err != nil {
			e.t.Fatalf("autovacuum off for %s: %v", t, err)
		}
	}
}
