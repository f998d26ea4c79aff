package tracking_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/internal/tracking"
)

// streakLead is one lead of a streak test and the helpers that send to it
// and bounce its sends.
type streakLead struct {
	e     *env
	camp  int64
	id    int64
	email string
	n     int
}

func newStreakLead(e *env, email string) *streakLead {
	camp := e.campaign(e.ws, "C-"+email, nil)
	return &streakLead{e: e, camp: camp, id: e.lead(e.ws, camp, email, nil), email: email}
}

// send registers a send at the env's clock and returns its Message-ID.
func (s *streakLead) send() string {
	s.e.t.Helper()
	s.n++
	mid := fmt.Sprintf("%s-%d@example.org", s.email, s.n)
	if _, err := s.e.svc.RecordSent(s.e.ctx, s.e.ws, []tracking.Sent{{CampaignID: s.camp, LeadID: s.id, MessageID: mid, SentAt: s.e.clock()}}); err != nil {
		s.e.t.Fatal(err)
	}
	return mid
}

// dsn records a DSN at the env's clock for the send mid ("" leaves the
// original Message-ID out: the bounce is matched by recipient and tied to
// its send by time); action is failed (a soft 4.2.2 bounce) or delivered.
func (s *streakLead) dsn(id, mid, action string) tracking.Outcome {
	s.e.t.Helper()
	b := bounce{ID: id, Recipient: s.email, OrigID: mid, Status: "4.2.2", Diag: softDiag}
	if action == "delivered" {
		b.Action, b.Status, b.Diag = "delivered", "2.0.0", "250 2.0.0 OK"
	}
	return s.e.record(tracking.Incoming{Raw: b.bytes(), ReceivedAt: s.e.clock()})
}

// bouncedSend registers a send, lets five minutes pass and records a DSN
// for it with action (see dsn).
func (s *streakLead) bouncedSend(id, action string) tracking.Outcome {
	s.e.t.Helper()
	mid := s.send()
	s.e.advance(5 * time.Minute)
	return s.dsn(id, mid, action)
}

// checkReplay runs a Reprocess that rewrites every event (so every lead is
// replayed from its history) and fails when the lead's state differs from
// the one recording left.
func (s *streakLead) checkReplay() {
	s.e.t.Helper()
	want := s.e.getLead(s.id)
	if _, err := rewriteAll(s.e).Reprocess(s.e.ctx, tracking.ReprocessOptions{}); err != nil {
		s.e.t.Fatal(err)
	}
	got := s.e.getLead(s.id)
	if got.Status != want.Status || got.ConsecutiveSoftBounces != want.ConsecutiveSoftBounces ||
		got.StopReason != want.StopReason || !eqTime(got.RetryAfter, want.RetryAfter) ||
		!eqTime(got.StoppedAt, want.StoppedAt) || got.BounceCount != want.BounceCount {
		s.e.t.Fatalf("reprocess disagrees with recording:\n got  %s\n want %s", leadState(got), leadState(want))
	}
	s.e.checkCounters(s.e.ws)
}

func eqTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

func leadState(l store.Lead) string {
	return fmt.Sprintf("status %s (%s) consecutive %d retry %v stopped %v bounces %d",
		l.Status, l.StopReason, l.ConsecutiveSoftBounces, l.RetryAfter, l.StoppedAt, l.BounceCount)
}

// TestStreakStopsAtFourthSoftBouncedSend is the normal flow the rule is
// for: send, soft bounce, next scheduled send, soft bounce... The sends do
// not reset the counter; the fourth soft-bounced send stops the lead, with
// retry_after 30 min, 1 h and 2 h after the first three.
func TestStreakStopsAtFourthSoftBouncedSend(t *testing.T) {
	e := newEnv(t)
	s := newStreakLead(e, "four@example.com")
	backoff := []time.Duration{30 * time.Minute, time.Hour, 2 * time.Hour}
	for i := range 4 {
		mid := s.send()
		if l := e.getLead(s.id); l.ConsecutiveSoftBounces != i {
			t.Fatalf("send %d reset or moved the counter: %s", i+1, leadState(l))
		}
		e.advance(5 * time.Minute)
		out := s.dsn(fmt.Sprintf("four%d", i), mid, "failed")
		at := e.clock()
		l := e.getLead(s.id)
		if i < 3 {
			if l.Status != store.LeadActive || l.ConsecutiveSoftBounces != i+1 || !eqTime(l.RetryAfter, ptrTime(at.Add(backoff[i]))) ||
				out.Events[0].Effect != "retry later" {
				t.Fatalf("soft bounce %d: %s, effect %q; want active, %d, retry %v", i+1, leadState(l), out.Events[0].Effect, i+1, at.Add(backoff[i]))
			}
		} else if l.Status != store.LeadStopped || l.StopReason != tracking.StopSoftBounceLimit || l.ConsecutiveSoftBounces != 4 ||
			l.RetryAfter != nil || !eqTime(l.StoppedAt, &at) {
			t.Fatalf("soft bounce 4: %s; want stopped at %v by the soft-bounce limit", leadState(l), at)
		}
		e.advance(24 * time.Hour)
	}
	s.checkReplay()
}

func ptrTime(t time.Time) *time.Time { return &t }

// TestStreakUnbouncedSendEndsIt: send + soft bounce, a send with no bounce,
// send + soft bounce. The unbounced send, followed by a bounced one, went
// through: the streak is 1, not 2. The last bounce is not tied to its send
// by Message-ID (it is tied by time).
func TestStreakUnbouncedSendEndsIt(t *testing.T) {
	e := newEnv(t)
	s := newStreakLead(e, "gap@example.com")
	s.bouncedSend("gap1", "failed")
	e.advance(24 * time.Hour)
	s.send()
	e.advance(24 * time.Hour)
	if l := e.getLead(s.id); l.ConsecutiveSoftBounces != 1 {
		t.Fatalf("before the third send: %s; want 1", leadState(l))
	}
	s.send()
	e.advance(5 * time.Minute)
	s.dsn("gap3", "", "failed")
	l := e.getLead(s.id)
	if l.Status != store.LeadActive || l.ConsecutiveSoftBounces != 1 || !eqTime(l.RetryAfter, ptrTime(e.clock().Add(30*time.Minute))) {
		t.Fatalf("after send/soft, send, send/soft: %s; want active, 1, retry in 30 min", leadState(l))
	}
	s.checkReplay()
}

// TestStreakTwoDSNsForOneSend: two DSNs for one send (an MTA retry
// reported twice, one of them without the original Message-ID) count once,
// and the retry time runs from the first.
func TestStreakTwoDSNsForOneSend(t *testing.T) {
	e := newEnv(t)
	s := newStreakLead(e, "twice@example.com")
	s.bouncedSend("tw1", "failed")
	e.advance(24 * time.Hour)
	mid := s.send()
	e.advance(5 * time.Minute)
	s.dsn("tw2", mid, "failed")
	first := e.clock()
	e.advance(20 * time.Minute)
	out := s.dsn("tw2-again", mid, "failed")
	e.advance(20 * time.Minute)
	s.dsn("tw2-unlinked", "", "failed")
	l := e.getLead(s.id)
	if l.ConsecutiveSoftBounces != 2 || l.BounceCount != 4 || !eqTime(l.RetryAfter, ptrTime(first.Add(time.Hour))) || out.Events[0].Effect != "" {
		t.Fatalf("after 2 sends and 4 soft DSNs: %s, second DSN's effect %q; want 2, 4 bounces, retry %v, no effect",
			leadState(l), out.Events[0].Effect, first.Add(time.Hour))
	}
	s.checkReplay()
}

// TestStreakDeliveredResets: a delivery notice for the latest send resets
// the counter and the retry; the next soft-bounced send starts again at 1.
func TestStreakDeliveredResets(t *testing.T) {
	e := newEnv(t)
	s := newStreakLead(e, "deliv@example.com")
	for i := range 3 {
		s.bouncedSend(fmt.Sprintf("dv%d", i), "failed")
		e.advance(24 * time.Hour)
	}
	out := s.bouncedSend("dv-ok", "delivered")
	if l := e.getLead(s.id); l.ConsecutiveSoftBounces != 0 || l.RetryAfter != nil || l.Status != store.LeadActive ||
		out.Events[0].Kind != "delivered" || out.Events[0].Effect != "soft-bounce counter reset" {
		t.Fatalf("after delivered: %s, outcome %+v; want active, 0, no retry, reset", leadState(l), out.Events)
	}
	e.advance(24 * time.Hour)
	s.bouncedSend("dv-after", "failed")
	if l := e.getLead(s.id); l.ConsecutiveSoftBounces != 1 || !eqTime(l.RetryAfter, ptrTime(e.clock().Add(30*time.Minute))) {
		t.Fatalf("soft bounce after delivered: %s; want 1, retry in 30 min", leadState(l))
	}
	s.checkReplay()
}

// TestStreakWorkspaceLimit: a workspace's soft-bounce limit and backoff
// override the defaults.
func TestStreakWorkspaceLimit(t *testing.T) {
	e := newEnv(t)
	limit, base := 2, 600
	e.create(&store.PolicySettings{WorkspaceID: e.ws, SoftBounceLimit: &limit, BackoffBaseSeconds: &base})
	s := newStreakLead(e, "limit@example.com")
	s.bouncedSend("lim1", "failed")
	if l := e.getLead(s.id); l.Status != store.LeadActive || !eqTime(l.RetryAfter, ptrTime(e.clock().Add(10*time.Minute))) {
		t.Fatalf("first soft bounce: %s; want active, retry in 10 min", leadState(l))
	}
	e.advance(24 * time.Hour)
	s.bouncedSend("lim2", "failed")
	if l := e.getLead(s.id); l.Status != store.LeadStopped || l.StopReason != tracking.StopSoftBounceLimit || l.ConsecutiveSoftBounces != 2 {
		t.Fatalf("second soft-bounced send: %s; want stopped by the limit of 2", leadState(l))
	}
	s.checkReplay()
}

// TestStreakReactivatedLead: a lead stopped at the limit and reactivated by
// hand (the API resets its counter) counts from the reset: the next
// soft-bounced send is its first, not its fifth.
func TestStreakReactivatedLead(t *testing.T) {
	e := newEnv(t)
	s := newStreakLead(e, "again@example.com")
	for i := range 4 {
		s.bouncedSend(fmt.Sprintf("ag%d", i), "failed")
		e.advance(24 * time.Hour)
	}
	if l := e.getLead(s.id); l.Status != store.LeadStopped {
		t.Fatalf("after 4 soft-bounced sends: %s; want stopped", leadState(l))
	}
	if err := e.db.Model(&store.Lead{}).Where("id = ?", s.id).Updates(map[string]any{
		"status": store.LeadActive, "stop_reason": "", "stopped_at": nil, "consecutive_soft_bounces": 0, "retry_after": nil}).Error; err != nil {
		t.Fatal(err)
	}
	s.bouncedSend("ag-after", "failed")
	if l := e.getLead(s.id); l.Status != store.LeadActive || l.ConsecutiveSoftBounces != 1 {
		t.Fatalf("soft bounce after reactivation: %s; want active, 1", leadState(l))
	}
}
