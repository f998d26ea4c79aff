package tracking_test

import (
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/dsn"
	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/internal/tracking"
)

// ghostDecoder stands for a decoder release that read the mailbox-full
// deferrals of messages whose ID starts with "ghost" as 5.1.1 user unknown.
func ghostDecoder(raw []byte) ([]dsn.Result, error) {
	res, err := dsn.Decode(raw)
	if err != nil || !contains(string(raw), "Message-ID: <ghost") {
		return res, err
	}
	for i := range res {
		res[i].Status, res[i].ReplyCode = "5.1.1", "550"
		res[i].Diagnostic = "550 5.1.1 <" + res[i].Recipient + ">: Recipient address rejected: User unknown"
	}
	return res, nil
}

// TestReprocessKeepsSuppressionOfOtherEvent: an address suppressed by a
// misread event is also the recipient of a true user-unknown bounce that
// came later (and so created no suppression of its own). Reprocessing
// corrects the misread event and drops the suppression it created; the
// address must stay suppressed on the strength of the other event.
func TestReprocessKeepsSuppressionOfOtherEvent(t *testing.T) {
	e := newEnv(t)
	old := tracking.New(e.db, tracking.Options{Now: e.clock, Decode: ghostDecoder})
	t0 := e.now
	if _, err := old.Record(e.ctx, tracking.Incoming{WorkspaceID: e.ws, ReceivedAt: t0,
		Raw: bounce{ID: "ghost1", Recipient: "gone@example.com", Status: "4.2.2", Diag: softDiag}.bytes()}); err != nil {
		t.Fatal(err)
	}
	out, err := e.svc.Record(e.ctx, tracking.Incoming{WorkspaceID: e.ws, ReceivedAt: t0.Add(time.Hour),
		Raw: bounce{ID: "real1", Recipient: "gone@example.com"}.bytes()})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Events) != 1 || !out.Events[0].AddressInvalid {
		t.Fatalf("true bounce: %+v, want one address_invalid event", out.Events)
	}
	// A mailbox-full deferral misread the same way, for an address no
	// other event calls dead: reprocessing must lift its suppression.
	if _, err := old.Record(e.ctx, tracking.Incoming{WorkspaceID: e.ws, ReceivedAt: t0,
		Raw: bounce{ID: "ghost2", Recipient: "full@example.com", Status: "4.2.2", Diag: softDiag}.bytes()}); err != nil {
		t.Fatal(err)
	}
	if n := e.count("suppressions", ""); n != 2 {
		t.Fatalf("%d suppressions before reprocessing, want 2", n)
	}
	if _, err := e.svc.Reprocess(e.ctx, tracking.ReprocessOptions{}); err != nil {
		t.Fatal(err)
	}
	var s store.Suppression
	if err := e.db.Where("workspace_id = ? AND email = ?", e.ws, "gone@example.com").Take(&s).Error; err != nil {
		t.Fatalf("gone@example.com no longer suppressed after reprocessing: %v", err)
	}
	if s.SourceEventID == nil || *s.SourceEventID != out.Events[0].EventID || s.Reason != "userunknown" {
		t.Fatalf("suppression %+v, want reason userunknown from event %d", s, out.Events[0].EventID)
	}
	if n := e.count("suppressions", "email = ?", "full@example.com"); n != 0 {
		t.Fatalf("full@example.com still suppressed after reprocessing corrected its only event")
	}
	// Running it again changes nothing.
	st, err := e.svc.Reprocess(e.ctx, tracking.ReprocessOptions{})
	if err != nil || st.Changed != 0 || e.count("suppressions", "") != 1 {
		t.Fatalf("second reprocess: %+v, %v, %d suppressions", st, err, e.count("suppressions", ""))
	}
	e.checkCounters(e.ws)
}
