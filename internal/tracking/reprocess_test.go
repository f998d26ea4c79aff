package tracking_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/dsn"
	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/internal/tracking"
)

// oldDecoder stands for an earlier decoder release with two faults: it
// cannot read messages whose bounce ID starts with "broken", and it reads
// every 5.1.1 as a 4.2.2 mailbox-full deferral and reports a phantom second
// recipient for messages whose ID starts with "twin".
func oldDecoder(raw []byte) ([]dsn.Result, error) {
	s := string(raw)
	if contains(s, "Message-ID: <broken") {
		return nil, errors.New("dsn: decode mime: unsupported structure (old release)")
	}
	res, err := dsn.Decode(raw)
	if err != nil {
		return nil, err
	}
	for i := range res {
		if res[i].Status == "5.1.1" {
			res[i].Status, res[i].ReplyCode, res[i].Diagnostic = "4.2.2", "452", softDiag
		}
	}
	if contains(s, "Message-ID: <twin") && len(res) > 0 {
		extra := res[0]
		extra.Recipient = "phantom@example.com"
		res = append(res, extra)
	}
	return res, nil
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestReprocessCorrectsHistory(t *testing.T) {
	e := newEnv(t)
	old := tracking.New(e.db, tracking.Options{Now: e.clock, Decode: oldDecoder})
	camp := e.campaign(e.ws, "C", nil)
	hard := e.lead(e.ws, camp, "hard@example.com", nil)
	broken := e.lead(e.ws, camp, "broken@example.com", nil)
	twin := e.lead(e.ws, camp, "twin@example.com", nil)
	early := e.lead(e.ws, camp, "early@example.com", nil)
	if _, err := e.svc.RecordSent(e.ctx, e.ws, []tracking.Sent{
		{CampaignID: camp, LeadID: hard, MessageID: "s-hard@example.org", SentAt: e.now.Add(-time.Hour)},
	}); err != nil {
		t.Fatal(err)
	}
	t0 := e.now
	rec := func(svc *tracking.Service, b bounce, at time.Time) tracking.Outcome {
		out, err := svc.Record(e.ctx, tracking.Incoming{WorkspaceID: e.ws, Raw: b.bytes(), ReceivedAt: at})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	// Recorded before the --since date: must stay as the old decoder left it.
	rec(old, bounce{ID: "e1", Recipient: "early@example.com"}, t0.Add(-72*time.Hour))
	// Recorded with the old decoder.
	rec(old, bounce{ID: "h1", Recipient: "hard@example.com", OrigID: "s-hard@example.org"}, t0)
	if out := rec(old, bounce{ID: "broken1", Recipient: "broken@example.com"}, t0.Add(time.Minute)); out.DecodeStatus != store.DecodeUndecoded {
		t.Fatalf("old decoder read the broken message: %+v", out)
	}
	rec(old, bounce{ID: "twin1", Recipient: "twin@example.com", Status: "4.2.2", Diag: softDiag}, t0.Add(2*time.Minute))
	e.checkCounters(e.ws)
	if l := e.getLead(hard); l.Status != store.LeadActive || l.ConsecutiveSoftBounces != 1 {
		t.Fatalf("hard lead under the old decoder: %+v", l)
	}
	if n := e.count("bounce_events", ""); n != 4 { // e1, h1, twin1 x2
		t.Fatalf("events before = %d", n)
	}
	ids := map[string]int64{}
	var evs []store.BounceEvent
	e.db.Find(&evs)
	for _, ev := range evs {
		ids[ev.Recipient] = ev.ID
	}

	e.advance(time.Hour)
	st, err := e.svc.Reprocess(e.ctx, tracking.ReprocessOptions{Since: t0.Add(-time.Hour), BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st.Messages != 3 || st.Changed != 3 || st.EventsCreated != 1 || st.EventsUpdated != 1 || st.EventsDeleted != 1 || st.UndecodedAfter != 0 {
		t.Fatalf("stats = %+v", st)
	}
	// hard@: now a hard bounce, same event ID, lead stopped, suppressed.
	var ev store.BounceEvent
	e.db.First(&ev, ids["hard@example.com"])
	if ev.Status != "5.1.1" || ev.Class == nil || *ev.Class != "hard" || ev.Reason != "userunknown" || ev.MatchedBy == nil || *ev.MatchedBy != tracking.MatchedByMessageID {
		t.Fatalf("corrected event = %+v", ev)
	}
	if l := e.getLead(hard); l.Status != store.LeadStopped || l.StopReason != tracking.StopHardBounce || l.ConsecutiveSoftBounces != 0 || l.RetryAfter != nil || l.BounceCount != 1 {
		t.Fatalf("hard lead after reprocess: %+v", l)
	}
	if n := e.count("suppressions", "email = ?", "hard@example.com"); n != 1 {
		t.Fatal("hard@ not suppressed")
	}
	var acts []store.LeadActivity
	e.db.Where("lead_id = ? AND activity = 'bounce'", hard).Find(&acts)
	if len(acts) != 1 || !contains(acts[0].Summary, "hard bounce (userunknown, 5.1.1)") || acts[0].Effect != "stopped: hard_bounce; address suppressed" {
		t.Fatalf("timeline = %+v", acts)
	}
	// broken@: decodes now.
	if l := e.getLead(broken); l.Status != store.LeadStopped {
		t.Fatalf("broken lead = %+v", l)
	}
	if n := e.count("raw_messages", "decode_status = 'undecoded'"); n != 0 {
		t.Fatalf("%d messages still undecoded", n)
	}
	// twin: the phantom recipient's event is gone.
	if n := e.count("bounce_events", "recipient = ?", "phantom@example.com"); n != 0 {
		t.Fatal("phantom event kept")
	}
	if l := e.getLead(twin); l.ConsecutiveSoftBounces != 1 || l.Status != store.LeadActive {
		t.Fatalf("twin lead = %+v", l)
	}
	// early@: before --since, untouched (still the old reading).
	if l := e.getLead(early); l.Status != store.LeadActive || l.ConsecutiveSoftBounces != 1 {
		t.Fatalf("early lead = %+v", l)
	}
	c := e.checkCounters(e.ws)
	if got := c.Campaigns[camp]; got.Hard != 2 || got.Soft != 2 || got.LeadsBounced != 4 || got.Sent != 1 {
		t.Fatalf("campaign counters after reprocess = %+v", got)
	}

	// Idempotent: a second run changes nothing.
	before := e.checkCounters(e.ws)
	st, err = e.svc.Reprocess(e.ctx, tracking.ReprocessOptions{Since: t0.Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if st.Changed != 0 || st.EventsCreated+st.EventsUpdated+st.EventsDeleted != 0 || st.LeadsReplayed != 0 {
		t.Fatalf("second run stats = %+v", st)
	}
	after := e.checkCounters(e.ws)
	if fmt.Sprint(before.Campaigns) != fmt.Sprint(after.Campaigns) {
		t.Fatalf("second run moved counters")
	}

	// Going back to the old decoder reverses everything: the hard lead's
	// policy stop and its suppression are undone.
	if _, err := old.Reprocess(e.ctx, tracking.ReprocessOptions{}); err != nil {
		t.Fatal(err)
	}
	if l := e.getLead(hard); l.Status != store.LeadActive || l.ConsecutiveSoftBounces != 1 || l.RetryAfter == nil {
		t.Fatalf("hard lead after reverting: %+v", l)
	}
	if n := e.count("suppressions", "email = ?", "hard@example.com"); n != 0 {
		t.Fatal("suppression kept after reverting")
	}
	if n := e.count("bounce_events", "recipient = ?", "phantom@example.com"); n != 1 {
		t.Fatal("phantom event not recreated")
	}
	e.checkCounters(e.ws)
}

func TestReprocessKeepsSendingSideStops(t *testing.T) {
	e := newEnv(t)
	old := tracking.New(e.db, tracking.Options{Now: e.clock, Decode: oldDecoder})
	camp := e.campaign(e.ws, "C", nil)
	lead := e.lead(e.ws, camp, "u@example.com", nil)
	if _, err := old.Record(e.ctx, tracking.Incoming{WorkspaceID: e.ws, Raw: bounce{ID: "u1", Recipient: "u@example.com"}.bytes()}); err != nil {
		t.Fatal(err)
	}
	// The sending side stopped the lead for its own reason.
	e.db.Model(&store.Lead{}).Where("id = ?", lead).Updates(map[string]any{"status": store.LeadStopped, "stop_reason": "unsubscribed"})
	if _, err := e.svc.Reprocess(e.ctx, tracking.ReprocessOptions{}); err != nil {
		t.Fatal(err)
	}
	l := e.getLead(lead)
	if l.Status != store.LeadStopped || l.StopReason != "unsubscribed" || l.BounceCount != 1 {
		t.Fatalf("lead = %+v", l)
	}
	e.checkCounters(e.ws)
}

// TestReprocessDoesNotMatchLaterLeads: an event that matched nothing stays
// unmatched by address when the only lead with its address was created after
// the message arrived.
func TestReprocessDoesNotMatchLaterLeads(t *testing.T) {
	e := newEnv(t)
	arrived := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	out, err := e.svc.Record(e.ctx, tracking.Incoming{WorkspaceID: e.ws, ReceivedAt: arrived,
		Raw: bounce{ID: "late1", Recipient: "late@example.com"}.bytes()})
	if err != nil || out.Events[0].CampaignID != 0 {
		t.Fatalf("record: %+v %v", out, err)
	}
	camp := e.campaign(e.ws, "C", nil)
	later := e.lead(e.ws, camp, "late@example.com", nil) // created now, after the bounce
	old := &store.Lead{WorkspaceID: e.ws, CampaignID: camp, Email: "old@example.com", Status: store.LeadActive,
		CreatedAt: arrived.Add(-time.Hour)}
	e.create(old)
	out2, err := old2(e).Record(e.ctx, tracking.Incoming{WorkspaceID: e.ws, ReceivedAt: arrived,
		Raw: bounce{ID: "broken-old", Recipient: "old@example.com"}.bytes()})
	if err != nil || out2.DecodeStatus != store.DecodeUndecoded {
		t.Fatalf("record with the old decoder: %+v %v", out2, err)
	}
	if _, err := e.svc.Reprocess(e.ctx, tracking.ReprocessOptions{}); err != nil {
		t.Fatal(err)
	}
	if l := e.getLead(later); l.BounceCount != 0 || l.Status != store.LeadActive {
		t.Fatalf("a lead created after the bounce got it: %+v", l)
	}
	if l := e.getLead(old.ID); l.BounceCount != 1 || l.Status != store.LeadStopped {
		t.Fatalf("the lead that existed did not get its bounce: %+v", l)
	}
	e.checkCounters(e.ws)
}

func old2(e *env) *tracking.Service {
	return tracking.New(e.db, tracking.Options{Now: e.clock, Decode: oldDecoder})
}

// TestReprocessSkipsEmptiedMessages: a message whose bytes retention emptied
// keeps its events; the run goes on.
func TestReprocessSkipsEmptiedMessages(t *testing.T) {
	e := newEnv(t)
	camp := e.campaign(e.ws, "C", nil)
	lead := e.lead(e.ws, camp, "kept@example.com", nil)
	old := old2(e)
	a, err := old.Record(e.ctx, tracking.Incoming{WorkspaceID: e.ws, Raw: bounce{ID: "k1", Recipient: "kept@example.com"}.bytes()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Record(e.ctx, tracking.Incoming{WorkspaceID: e.ws, Raw: bounce{ID: "k2", Recipient: "other@example.com"}.bytes()}); err != nil {
		t.Fatal(err)
	}
	e.db.Exec("UPDATE raw_messages SET content = ''::bytea WHERE id = ?", a.RawMessageID)
	st, err := e.svc.Reprocess(e.ctx, tracking.ReprocessOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Skipped != 1 || st.Messages != 1 || st.Changed != 1 || st.EventsDeleted != 0 {
		t.Fatalf("stats = %+v", st)
	}
	if l := e.getLead(lead); l.ConsecutiveSoftBounces != 1 || l.Status != store.LeadActive {
		t.Fatalf("lead of the emptied message changed: %+v", l)
	}
	e.checkCounters(e.ws)
}
