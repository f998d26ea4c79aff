package tracking_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/dsn"
	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/internal/tracking"
)

// TestRecordLateSoftBounces records, after the fact, the soft bounces of
// four sends that were each followed by the next send (a mailbox synced
// late, after an outage). Each bounce is tied by time to the send before
// it: four consecutive sends soft-bounced, so the lead is stopped at the
// fourth (a send resets nothing), exactly as when they arrive on time, and
// as replaying the history in time order (Reprocess) computes.
func TestRecordLateSoftBounces(t *testing.T) {
	e := newEnv(t)
	camp := e.campaign(e.ws, "C", nil)
	lead := e.lead(e.ws, camp, "late@example.com", nil)
	t0 := e.now.Add(-24 * time.Hour)
	var sends []tracking.Sent
	for i := range 4 {
		sends = append(sends, tracking.Sent{CampaignID: camp, LeadID: lead,
			MessageID: fmt.Sprintf("m%d@example.org", i), SentAt: t0.Add(time.Duration(i) * time.Hour)})
	}
	if _, err := e.svc.RecordSent(e.ctx, e.ws, sends); err != nil {
		t.Fatal(err)
	}
	var batch []tracking.Incoming
	for i := range 4 {
		batch = append(batch, tracking.Incoming{WorkspaceID: e.ws,
			Raw:        bounce{ID: fmt.Sprintf("late%d", i), Recipient: "late@example.com", Status: "4.2.2", Diag: softDiag}.bytes(),
			ReceivedAt: t0.Add(time.Duration(i)*time.Hour + 5*time.Minute)})
	}
	// The first bounce alone, then the other three in one batch.
	if _, err := e.svc.RecordBatch(e.ctx, batch[:1], nil); err != nil {
		t.Fatal(err)
	}
	outs, err := e.svc.RecordBatch(e.ctx, batch[1:], nil)
	if err != nil {
		t.Fatal(err)
	}
	wantEffects := []string{"retry later", "retry later", "retry later", "stopped: " + tracking.StopSoftBounceLimit}
	for i, o := range outs {
		if len(o.Events) != 1 || o.Events[0].Effect != wantEffects[i+1] {
			t.Errorf("bounce %d: outcome %+v, want one event with effect %q", i+2, o.Events, wantEffects[i+1])
		}
	}
	l := e.getLead(lead)
	wantStop := t0.Add(3*time.Hour + 5*time.Minute)
	if l.Status != store.LeadStopped || l.StopReason != tracking.StopSoftBounceLimit || l.ConsecutiveSoftBounces != 4 ||
		l.BounceCount != 4 || l.RetryAfter != nil || !eqTime(l.StoppedAt, &wantStop) {
		t.Fatalf("after late soft bounces: %s; want stopped by the limit at %v, 4, 4 bounces, no retry", leadState(l), wantStop)
	}
	var effects []string
	if err := e.db.Table("lead_activities").Where("lead_id = ? AND bounce_event_id IS NOT NULL", lead).
		Order("occurred_at").Pluck("effect", &effects).Error; err != nil {
		t.Fatal(err)
	}
	if len(effects) != 4 {
		t.Fatalf("%d timeline entries, want 4", len(effects))
	}
	for i, eff := range effects {
		if eff != wantEffects[i] {
			t.Errorf("timeline entry %d: effect %q, want %q", i+1, eff, wantEffects[i])
		}
	}
	if st, err := rewriteAll(e).Reprocess(e.ctx, tracking.ReprocessOptions{}); err != nil || st.LeadsReplayed != 1 {
		t.Fatalf("reprocess: %+v, %v; want the lead replayed", st, err)
	}
	if r := e.getLead(lead); r.Status != l.Status || r.ConsecutiveSoftBounces != l.ConsecutiveSoftBounces ||
		r.BounceCount != l.BounceCount || !eqTime(r.RetryAfter, l.RetryAfter) || !eqTime(r.StoppedAt, l.StoppedAt) {
		t.Fatalf("reprocess disagrees with recording: %s, recorded %s", leadState(r), leadState(l))
	}
	e.checkCounters(e.ws)
}

// TestRecordLateSend registers a send dated before three soft bounces that
// are already recorded. Recorded with no send known, each bounce counted as
// a send of its own (3); the late send is the latest send before all three,
// so they are three DSNs of one send and count once: the counter becomes 1
// with the retry running from the first of them, as Reprocess computes.
func TestRecordLateSend(t *testing.T) {
	e := newEnv(t)
	camp := e.campaign(e.ws, "C", nil)
	lead := e.lead(e.ws, camp, "sent-late@example.com", nil)
	t0 := e.now.Add(-24 * time.Hour)
	for i := range 3 {
		if _, err := e.svc.RecordBatch(e.ctx, []tracking.Incoming{{WorkspaceID: e.ws,
			Raw:        bounce{ID: fmt.Sprintf("sl%d", i), Recipient: "sent-late@example.com", Status: "4.2.2", Diag: softDiag}.bytes(),
			ReceivedAt: t0.Add(time.Duration(i+1) * time.Hour)}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.svc.RecordSent(e.ctx, e.ws, []tracking.Sent{{CampaignID: camp, LeadID: lead,
		MessageID: "old@example.org", SentAt: t0}}); err != nil {
		t.Fatal(err)
	}
	l := e.getLead(lead)
	wantRetry := t0.Add(time.Hour + 30*time.Minute)
	if l.ConsecutiveSoftBounces != 1 || !eqTime(l.RetryAfter, &wantRetry) || l.LastSentAt == nil || !l.LastSentAt.Equal(t0) {
		t.Fatalf("after a send dated before the bounces: consecutive %d, retry %v, last sent %v; want 1, %v, %v",
			l.ConsecutiveSoftBounces, l.RetryAfter, l.LastSentAt, wantRetry, t0)
	}
	if st, err := rewriteAll(e).Reprocess(e.ctx, tracking.ReprocessOptions{}); err != nil || st.LeadsReplayed != 1 {
		t.Fatalf("reprocess: %+v, %v; want the lead replayed", st, err)
	}
	if r := e.getLead(lead); r.ConsecutiveSoftBounces != l.ConsecutiveSoftBounces || !eqTime(r.RetryAfter, l.RetryAfter) {
		t.Fatalf("reprocess disagrees with recording: %s, recorded %s", leadState(r), leadState(l))
	}
	e.checkCounters(e.ws)
}

// rewriteAll returns a Service whose decoder words every diagnostic
// differently, so that Reprocess rewrites every event and replays the
// policy over the whole history of every lead.
func rewriteAll(e *env) *tracking.Service {
	return tracking.New(e.db, tracking.Options{Now: e.clock, Decode: func(raw []byte) ([]dsn.Result, error) {
		res, err := dsn.Decode(raw)
		for i := range res {
			res[i].Diagnostic += " (reworded)"
		}
		return res, err
	}})
}
