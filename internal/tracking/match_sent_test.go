package tracking_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/internal/tracking"
)

// tie is where an event points: its send and sending mailbox (0: none).
type tie struct{ sent, mailbox int64 }

func (e *env) tieOf(eventID int64) tie {
	e.t.Helper()
	var be store.BounceEvent
	if err := e.db.First(&be, eventID).Error; err != nil {
		e.t.Fatalf("event %d: %v", eventID, err)
	}
	var t tie
	if be.SentMessageID != nil {
		t.sent = *be.SentMessageID
	}
	if be.SendingMailboxID != nil {
		t.mailbox = *be.SendingMailboxID
	}
	return t
}

func (e *env) sentID(messageID string) int64 {
	e.t.Helper()
	var id int64
	if err := e.db.Raw("SELECT id FROM sent_messages WHERE workspace_id = ? AND message_id = ?", e.ws, messageID).Scan(&id).Error; err != nil || id == 0 {
		e.t.Fatalf("sent %s: id %d, %v", messageID, id, err)
	}
	return id
}

// tieFixture records sends for three leads and, at 12:00, one bounce
// without the original Message-ID for each:
//   - two@: sends from mailbox A at 09:00, B at 11:00, A at 13:00 (after the
//     bounce); matched by rule 4, it must tie to the 11:00 send and mailbox B;
//   - hdr@: a send from A at 10:00; matched by rule 1 (campaign and lead
//     headers), it must tie to that send;
//   - early@: only a send at 14:00; matched by rule 4, it stays untied and
//     under the mailbox the bounce arrived in.
type tieFixture struct {
	camp, mbA, mbB, mbRecv int64
	two, hdr, early        int64
	bounces                []bounce
	at                     time.Time
}

func newTieFixture(e *env) *tieFixture {
	e.t.Helper()
	f := &tieFixture{at: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	f.camp = e.campaign(e.ws, "C", nil)
	f.mbA, f.mbB, f.mbRecv = e.mailbox(e.ws), e.mailbox(e.ws), e.mailbox(e.ws)
	// Leads that existed when the bounces arrived (reprocessing's rule 4
	// takes only those).
	lead := func(email string) int64 {
		l := &store.Lead{WorkspaceID: e.ws, CampaignID: f.camp, Email: email, Status: store.LeadActive,
			CreatedAt: f.at.Add(-24 * time.Hour)}
		e.create(l)
		return l.ID
	}
	f.two, f.hdr, f.early = lead("two@example.com"), lead("hdr@example.com"), lead("early@example.com")
	_, err := e.svc.RecordSent(e.ctx, e.ws, []tracking.Sent{
		{CampaignID: f.camp, LeadID: f.two, MailboxID: f.mbA, MessageID: "two-1@example.org", SentAt: f.at.Add(-3 * time.Hour)},
		{CampaignID: f.camp, LeadID: f.two, MailboxID: f.mbB, MessageID: "two-2@example.org", SentAt: f.at.Add(-time.Hour)},
		{CampaignID: f.camp, LeadID: f.two, MailboxID: f.mbA, MessageID: "two-3@example.org", SentAt: f.at.Add(time.Hour)},
		{CampaignID: f.camp, LeadID: f.hdr, MailboxID: f.mbA, MessageID: "hdr-1@example.org", SentAt: f.at.Add(-2 * time.Hour)},
		{CampaignID: f.camp, LeadID: f.early, MailboxID: f.mbA, MessageID: "early-1@example.org", SentAt: f.at.Add(2 * time.Hour)},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	f.bounces = []bounce{
		{ID: "tie-two", Recipient: "two@example.com"},
		{ID: "tie-hdr", Recipient: "hdr@example.com", Campaign: strconv.FormatInt(f.camp, 10), Lead: strconv.FormatInt(f.hdr, 10)},
		{ID: "tie-early", Recipient: "early@example.com", Status: "4.2.2", Diag: softDiag},
	}
	return f
}

// want returns the ties the fixture's bounces must get, in order.
func (f *tieFixture) want(e *env) []tie {
	return []tie{
		{e.sentID("two-2@example.org"), f.mbB},
		{e.sentID("hdr-1@example.org"), f.mbA},
		{0, f.mbRecv},
	}
}

func TestRecordTiesLeadMatchToLatestSend(t *testing.T) {
	e := newEnv(t)
	f := newTieFixture(e)
	var msgs []tracking.Incoming
	for _, b := range f.bounces {
		msgs = append(msgs, tracking.Incoming{WorkspaceID: e.ws, MailboxID: f.mbRecv, Folder: "INBOX", ReceivedAt: f.at, Raw: b.bytes()})
	}
	outs, err := e.svc.RecordBatch(e.ctx, msgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := f.want(e)
	wantLead := []int64{f.two, f.hdr, f.early}
	wantBy := []string{tracking.MatchedByRecipient, tracking.MatchedByHeader, tracking.MatchedByRecipient}
	for i, out := range outs {
		if len(out.Events) != 1 {
			t.Fatalf("bounce %d: outcome %+v", i, out)
		}
		ev := out.Events[0]
		if ev.LeadID != wantLead[i] || ev.MatchedBy != wantBy[i] {
			t.Fatalf("bounce %d: lead %d by %q, want %d by %q", i, ev.LeadID, ev.MatchedBy, wantLead[i], wantBy[i])
		}
		if got := e.tieOf(ev.EventID); got != want[i] {
			t.Errorf("bounce %d: tie %+v, want %+v", i, got, want[i])
		}
		var act store.LeadActivity
		if err := e.db.Where("bounce_event_id = ?", ev.EventID).First(&act).Error; err != nil {
			t.Fatalf("bounce %d: timeline entry: %v", i, err)
		}
		if got := act.SentMessageID; (got == nil) != (want[i].sent == 0) || (got != nil && *got != want[i].sent) {
			t.Errorf("bounce %d: timeline entry sent message %v, want %d", i, got, want[i].sent)
		}
	}
	c := e.checkCounters(e.ws)
	mb := func(id int64) store.DimensionKey {
		return store.DimensionKey{CampaignID: f.camp, Dimension: "mailbox", Value: strconv.FormatInt(id, 10)}
	}
	if got := c.Dimensions[mb(f.mbB)]; got.Sent != 1 || got.Events != 1 || got.Hard != 1 {
		t.Errorf("mailbox B counters %+v, want its send and the bounce tied to it", got)
	}
	if got := c.Dimensions[mb(f.mbA)]; got.Sent != 4 || got.Events != 1 {
		t.Errorf("mailbox A counters %+v, want 4 sends and the header-matched bounce", got)
	}
	if got := c.Dimensions[mb(f.mbRecv)]; got.Sent != 0 || got.Events != 1 || got.Soft != 1 {
		t.Errorf("receiving mailbox counters %+v, want only the untied bounce", got)
	}
	// The streak ties by the stored send as it would by time.
	if l := e.getLead(f.early); l.ConsecutiveSoftBounces != 1 || l.Status != store.LeadActive {
		t.Errorf("untied soft bounce: lead %+v", l)
	}
}

// TestReprocessTiesLikeRecording: reprocessing gives the ties live recording
// gives, both for events it matches afresh (messages the old release could
// not decode) and for events whose match it keeps (recorded untied before
// sends were tied).
func TestReprocessTiesLikeRecording(t *testing.T) {
	e := newEnv(t)
	f := newTieFixture(e)
	want := f.want(e)

	// Matched afresh: the old release could not decode these messages.
	old := old2(e)
	var raws []int64
	for _, b := range f.bounces {
		b.ID = "broken-" + b.ID
		out, err := old.Record(e.ctx, tracking.Incoming{WorkspaceID: e.ws, MailboxID: f.mbRecv, ReceivedAt: f.at, Raw: b.bytes()})
		if err != nil || len(out.Events) != 0 {
			t.Fatalf("record with the old decoder: %+v %v", out, err)
		}
		raws = append(raws, out.RawMessageID)
	}
	if _, err := e.svc.Reprocess(e.ctx, tracking.ReprocessOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, raw := range raws {
		var id int64
		e.db.Raw("SELECT id FROM bounce_events WHERE raw_message_id = ?", raw).Scan(&id)
		if got := e.tieOf(id); got != want[i] {
			t.Errorf("re-decoded bounce %d: tie %+v, want %+v", i, got, want[i])
		}
	}
	e.checkCounters(e.ws)

	// Kept match: untie the events as a release before this one stored them
	// (counters recounted to agree), then reprocess.
	if err := e.db.Exec("UPDATE bounce_events SET sent_message_id = NULL, sending_mailbox_id = ? WHERE workspace_id = ?", f.mbRecv, e.ws).Error; err != nil {
		t.Fatal(err)
	}
	if err := e.db.Exec("UPDATE lead_activities SET sent_message_id = NULL WHERE workspace_id = ? AND bounce_event_id IS NOT NULL", e.ws).Error; err != nil {
		t.Fatal(err)
	}
	if err := store.RecountCounters(e.ctx, e.db, e.ws); err != nil {
		t.Fatal(err)
	}
	st, err := e.svc.Reprocess(e.ctx, tracking.ReprocessOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.EventsUpdated != 2 {
		t.Errorf("events updated = %d, want the 2 with a send", st.EventsUpdated)
	}
	for i, raw := range raws {
		var id int64
		e.db.Raw("SELECT id FROM bounce_events WHERE raw_message_id = ?", raw).Scan(&id)
		if got := e.tieOf(id); got != want[i] {
			t.Errorf("kept bounce %d: tie %+v, want %+v", i, got, want[i])
		}
	}
	e.checkCounters(e.ws)

	// Once tied, reprocessing again changes nothing.
	st, err = e.svc.Reprocess(e.ctx, tracking.ReprocessOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.EventsUpdated != 0 || st.EventsCreated != 0 || st.EventsDeleted != 0 {
		t.Errorf("second reprocess changed events: %+v", st)
	}
	e.checkCounters(e.ws)
}
