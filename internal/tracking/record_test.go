package tracking_test

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/dsn"
	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/internal/tracking"
)

func strp(s string) *string { return &s }

func TestRecordHardBounceByHeader(t *testing.T) {
	e := newEnv(t)
	camp := e.campaign(e.ws, "Launch", nil)
	lead := e.lead(e.ws, camp, "bob@example.com", nil)
	mb := e.mailbox(e.ws)
	raw := bounce{ID: "b1", Recipient: "Bob@Example.com", OrigID: "o1@example.org",
		Campaign: strconv.FormatInt(camp, 10), Lead: strconv.FormatInt(lead, 10)}.bytes()
	out := e.record(tracking.Incoming{MailboxID: mb, Folder: "INBOX", UIDValidity: 7, UID: 1, Raw: raw})

	if out.Duplicate || out.DecodeStatus != store.DecodeDecoded || len(out.Events) != 1 {
		t.Fatalf("outcome = %+v", out)
	}
	ev := out.Events[0]
	if ev.Kind != "bounce" || ev.Class != "hard" || ev.Reason != "userunknown" || !ev.AddressInvalid ||
		ev.CampaignID != camp || ev.LeadID != lead || ev.MatchedBy != tracking.MatchedByHeader ||
		ev.Recipient != "bob@example.com" || !ev.Suppressed || ev.Effect != "stopped: hard_bounce" {
		t.Fatalf("event outcome = %+v", ev)
	}
	l := e.getLead(lead)
	if l.Status != store.LeadStopped || l.StopReason != tracking.StopHardBounce || l.StoppedAt == nil || l.BounceCount != 1 {
		t.Fatalf("lead = %+v", l)
	}
	var sup store.Suppression
	if err := e.db.Where("workspace_id = ? AND email = ?", e.ws, "bob@example.com").Take(&sup).Error; err != nil {
		t.Fatalf("suppression: %v", err)
	}
	if sup.Reason != "userunknown" || sup.Source != "bounce" || sup.SourceEventID == nil || *sup.SourceEventID != ev.EventID {
		t.Fatalf("suppression = %+v", sup)
	}
	var acts []store.LeadActivity
	e.db.Where("lead_id = ?", lead).Find(&acts)
	if len(acts) != 1 || acts[0].Activity != "bounce" || acts[0].Effect != "stopped: hard_bounce; address suppressed" {
		t.Fatalf("timeline = %+v", acts)
	}
	var be store.BounceEvent
	e.db.First(&be, ev.EventID)
	if be.Status != "5.1.1" || be.ReplyCode != "550" || be.OriginalMessageID != "o1@example.org" ||
		be.SendingMailboxID == nil || *be.SendingMailboxID != mb || be.Diagnostic == "" || be.CodeEntryID == "" {
		t.Fatalf("event row = %+v", be)
	}
	c := e.checkCounters(e.ws)
	if got := c.Campaigns[camp]; got.Events != 1 || got.Hard != 1 || got.Bounced != 1 || got.LeadsBounced != 1 {
		t.Fatalf("campaign counters = %+v", got)
	}
	if got := c.Labels[store.LabelKey{CampaignID: camp, Label: "Invalid recipient", Class: "hard", Code: "5.1.1"}]; got != 1 {
		t.Fatalf("label counter = %d", got)
	}
}

func TestRecordMatchingRules(t *testing.T) {
	e := newEnv(t)
	campA := e.campaign(e.ws, "A", strp("ext-A"))
	campB := e.campaign(e.ws, "B", nil)
	mbSend := e.mailbox(e.ws)
	mbRecv := e.mailbox(e.ws)
	byExt := e.lead(e.ws, campA, "ext@example.com", strp("L-1"))
	byCampEmail := e.lead(e.ws, campA, "campemail@example.com", nil)
	byMsg := e.lead(e.ws, campA, "msg@example.com", nil)
	byVERP := e.lead(e.ws, campB, "verp@example.com", nil)
	oldLead := e.lead(e.ws, campA, "both@example.com", nil)
	newLead := e.lead(e.ws, campB, "both@example.com", nil)
	stopped := e.lead(e.ws, campA, "stopped@example.com", nil)
	e.db.Model(&store.Lead{}).Where("id = ?", stopped).Update("status", store.LeadStopped)

	_, err := e.svc.RecordSent(e.ctx, e.ws, []tracking.Sent{
		{CampaignID: campA, LeadID: byMsg, MailboxID: mbSend, MessageID: "<m-1@example.org>", SentAt: e.now.Add(-time.Hour)},
		{CampaignID: campB, LeadID: byVERP, MessageID: "m-2@example.org", VERPToken: "tok42", SentAt: e.now.Add(-time.Hour)},
		{CampaignID: campA, LeadID: oldLead, MessageID: "m-3@example.org", SentAt: e.now.Add(-48 * time.Hour)},
		{CampaignID: campB, LeadID: newLead, MessageID: "m-4@example.org", SentAt: e.now.Add(-2 * time.Hour)},
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		b        bounce
		camp     int64
		lead     int64
		by       string
		mailbox  int64
		sentLink bool
	}{
		{"header external IDs", bounce{ID: "h1", Recipient: "ext@example.com", Campaign: "ext-A", Lead: "L-1"}, campA, byExt, tracking.MatchedByHeader, mbRecv, false},
		{"header campaign + recipient", bounce{ID: "h2", Recipient: "campemail@example.com", Campaign: strconv.FormatInt(campA, 10)}, campA, byCampEmail, tracking.MatchedByHeader, mbRecv, false},
		{"header lead of another campaign falls through", bounce{ID: "h3", Recipient: "nobody@example.com", Campaign: strconv.FormatInt(campB, 10), Lead: strconv.FormatInt(byExt, 10)}, campB, 0, tracking.MatchedByHeader, mbRecv, false},
		{"original Message-ID", bounce{ID: "h4", Recipient: "msg@example.com", OrigID: "m-1@example.org"}, campA, byMsg, tracking.MatchedByMessageID, mbSend, true},
		{"VERP token", bounce{ID: "h5", Recipient: "verp@example.com", To: "bounces+tok42@mail.example.org"}, campB, byVERP, tracking.MatchedByVERP, mbRecv, true},
		{"recipient, most recently sent, tied to its send", bounce{ID: "h6", Recipient: "both@example.com"}, campB, newLead, tracking.MatchedByRecipient, mbRecv, true},
		{"stopped lead is not matched by address", bounce{ID: "h7", Recipient: "stopped@example.com"}, 0, 0, "", mbRecv, false},
		{"unknown address is unmatched", bounce{ID: "h8", Recipient: "ghost@example.com", Status: "4.2.2", Diag: softDiag}, 0, 0, "", mbRecv, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := e.record(tracking.Incoming{MailboxID: mbRecv, Folder: "INBOX", Raw: c.b.bytes()})
			if len(out.Events) != 1 {
				t.Fatalf("outcome = %+v", out)
			}
			ev := out.Events[0]
			if ev.CampaignID != c.camp || ev.LeadID != c.lead || ev.MatchedBy != c.by {
				t.Fatalf("matched (campaign %d, lead %d, by %q), want (%d, %d, %q)", ev.CampaignID, ev.LeadID, ev.MatchedBy, c.camp, c.lead, c.by)
			}
			var be store.BounceEvent
			e.db.First(&be, ev.EventID)
			if be.SendingMailboxID == nil || *be.SendingMailboxID != c.mailbox {
				t.Fatalf("sending mailbox = %v, want %d", be.SendingMailboxID, c.mailbox)
			}
			if (be.SentMessageID != nil) != c.sentLink {
				t.Fatalf("sent message link = %v", be.SentMessageID)
			}
		})
	}
	if n := e.count("bounce_events", "workspace_id = ? AND campaign_id IS NULL", e.ws); n != 2 {
		t.Fatalf("unmatched events = %d, want 2", n)
	}
	c := e.checkCounters(e.ws)
	if got := c.Campaigns[0]; got.Events != 2 || got.Soft != 1 {
		t.Fatalf("unmatched counters = %+v", got)
	}
	if got := c.Campaigns[campA]; got.Sent != 2 {
		t.Fatalf("campaign A sent = %d", got.Sent)
	}
}

func TestRecordDuplicatesChangeNothing(t *testing.T) {
	e := newEnv(t)
	camp := e.campaign(e.ws, "C", nil)
	lead := e.lead(e.ws, camp, "dup@example.com", nil)
	mb := e.mailbox(e.ws)
	b := bounce{ID: "d1", Recipient: "dup@example.com", Status: "4.2.2", Diag: softDiag}
	first := e.record(tracking.Incoming{MailboxID: mb, Folder: "INBOX", UID: 1, Raw: b.bytes()})
	if first.Duplicate || len(first.Events) != 1 {
		t.Fatalf("first = %+v", first)
	}
	before := e.checkCounters(e.ws)
	leadBefore := e.getLead(lead)

	// The same bytes again, and a copy in another folder with CRLF line
	// endings and extra trace headers.
	cp := b
	cp.CRLF = true
	cp.Trace = "Received: from mx by imap; Mon, 30 Nov 2026 02:01:00 +0000\nX-Gm-Labels: Bounces\nDelivered-To: sender@example.org\n"
	e.advance(time.Hour)
	for _, in := range []tracking.Incoming{
		{MailboxID: mb, Folder: "INBOX", UID: 1, Raw: b.bytes()},
		{MailboxID: mb, Folder: "Bounces", UID: 9, Raw: cp.bytes()},
	} {
		out := e.record(in)
		if !out.Duplicate || len(out.Events) != 0 || out.RawMessageID != first.RawMessageID {
			t.Fatalf("copy outcome = %+v", out)
		}
	}
	// Copies inside one batch too.
	outs, err := e.svc.RecordBatch(e.ctx, []tracking.Incoming{
		{WorkspaceID: e.ws, Raw: bounce{ID: "d2", Recipient: "dup@example.com", Status: "4.2.2", Diag: softDiag}.bytes()},
		{WorkspaceID: e.ws, Raw: bounce{ID: "d2", Recipient: "dup@example.com", Status: "4.2.2", Diag: softDiag, CRLF: true}.bytes()},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if outs[0].Duplicate || len(outs[0].Events) != 1 || !outs[1].Duplicate || outs[1].RawMessageID != outs[0].RawMessageID {
		t.Fatalf("in-batch copies = %+v", outs)
	}
	if n := e.count("raw_messages", ""); n != 2 {
		t.Fatalf("raw messages = %d, want 2", n)
	}
	if n := e.count("bounce_events", ""); n != 2 {
		t.Fatalf("events = %d, want 2", n)
	}
	after := e.checkCounters(e.ws)
	if after.Campaigns[camp].Events != before.Campaigns[camp].Events+1 {
		t.Fatalf("counters moved by copies: before %+v after %+v", before.Campaigns[camp], after.Campaigns[camp])
	}
	if l := e.getLead(lead); l.ConsecutiveSoftBounces != leadBefore.ConsecutiveSoftBounces+1 {
		t.Fatalf("soft counter = %d, want %d", l.ConsecutiveSoftBounces, leadBefore.ConsecutiveSoftBounces+1)
	}
	if n := e.count("lead_activities", "lead_id = ?", lead); n != 2 {
		t.Fatalf("timeline entries = %d, want 2", n)
	}
}

func TestRecordConcurrentWorkers(t *testing.T) {
	e := newEnv(t)
	camp := e.campaign(e.ws, "C", nil)
	const leads = 20
	var batch []tracking.Incoming
	for i := range leads {
		addr := fmt.Sprintf("c%d@example.com", i)
		e.lead(e.ws, camp, addr, nil)
		status, diag := "5.1.1", ""
		if i%2 == 1 {
			status, diag = "4.2.2", softDiag
		}
		batch = append(batch, tracking.Incoming{WorkspaceID: e.ws, Folder: "INBOX", UID: uint32(i + 1),
			Raw: bounce{ID: fmt.Sprintf("cc%d", i), Recipient: addr, Status: status, Diag: diag}.bytes()})
	}
	// Eight workers record the same messages at once: half one by one, half
	// as a batch in reversed order.
	const workers = 8
	var wg sync.WaitGroup
	errs := make(chan error, workers*leads)
	created := make(chan int, workers*leads)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if w%2 == 0 {
				for _, in := range batch {
					out, err := e.svc.Record(e.ctx, in)
					if err != nil {
						errs <- err
						return
					}
					created <- len(out.Events)
				}
				return
			}
			rev := make([]tracking.Incoming, len(batch))
			for i := range batch {
				rev[len(batch)-1-i] = batch[i]
			}
			outs, err := e.svc.RecordBatch(e.ctx, rev, nil)
			if err != nil {
				errs <- err
				return
			}
			for _, o := range outs {
				created <- len(o.Events)
			}
		}()
	}
	wg.Wait()
	close(errs)
	close(created)
	for err := range errs {
		t.Fatal(err)
	}
	total := 0
	for n := range created {
		total += n
	}
	if total != leads {
		t.Fatalf("workers created %d events in all, want %d", total, leads)
	}
	if n := e.count("bounce_events", ""); n != leads {
		t.Fatalf("events = %d, want %d", n, leads)
	}
	c := e.checkCounters(e.ws)
	if got := c.Campaigns[camp]; got.Events != leads || got.Hard != leads/2 || got.Soft != leads/2 || got.LeadsBounced != leads {
		t.Fatalf("counters = %+v", got)
	}
	if n := e.count("leads", "consecutive_soft_bounces = 1"); n != leads/2 {
		t.Fatalf("soft counters moved %d leads, want %d", n, leads/2)
	}
}

func TestRecordNothingLost(t *testing.T) {
	e := newEnv(t)
	garbage := []byte("\x00\x01 not a message at all")
	outs, err := e.svc.RecordBatch(e.ctx, []tracking.Incoming{
		{WorkspaceID: e.ws, Raw: garbage},
		{WorkspaceID: e.ws, Raw: plainMail("p1")},
		{WorkspaceID: e.ws, Raw: autoReply("ar1", "away@example.com")},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if outs[0].DecodeStatus != store.DecodeUndecoded || outs[0].DecodeError == "" || len(outs[0].Events) != 0 {
		t.Fatalf("garbage outcome = %+v", outs[0])
	}
	if outs[1].DecodeStatus != store.DecodeNotBounce || len(outs[1].Events) != 0 {
		t.Fatalf("plain mail outcome = %+v", outs[1])
	}
	if outs[2].DecodeStatus != store.DecodeDecoded || len(outs[2].Events) != 1 || outs[2].Events[0].Kind != "auto_reply" || outs[2].Events[0].CampaignID != 0 {
		t.Fatalf("auto-reply outcome = %+v", outs[2])
	}
	var raw store.RawMessage
	if err := e.db.First(&raw, outs[0].RawMessageID).Error; err != nil {
		t.Fatal(err)
	}
	back, err := tracking.Decompress(raw.Content)
	if err != nil || string(back) != string(garbage) || raw.DecodeError != outs[0].DecodeError || raw.Size != len(garbage) {
		t.Fatalf("stored undecoded message: %q %q %v", back, raw.DecodeError, err)
	}
	// A panicking decoder is caught and the message kept as undecoded.
	svc := tracking.New(e.db, tracking.Options{Now: e.clock, Decode: func([]byte) ([]dsnResult, error) { panic("boom") }})
	out, err := svc.Record(e.ctx, tracking.Incoming{WorkspaceID: e.ws, Raw: []byte("Subject: x\n\nboom\n")})
	if err != nil || out.DecodeStatus != store.DecodeUndecoded || out.DecodeError == "" {
		t.Fatalf("panicking decoder: %+v, %v", out, err)
	}
	e.checkCounters(e.ws)
}

func TestRecordBatchCheckpoint(t *testing.T) {
	e := newEnv(t)
	mb := e.mailbox(e.ws)
	folder := func() store.MailboxFolder {
		var f store.MailboxFolder
		if err := e.db.Where("mailbox_id = ? AND name = ?", mb, "INBOX").Take(&f).Error; err != nil {
			t.Fatal(err)
		}
		return f
	}
	msg := func(uid uint32) tracking.Incoming {
		return tracking.Incoming{WorkspaceID: e.ws, MailboxID: mb, Folder: "INBOX", UIDValidity: 5, UID: uid,
			Raw: bounce{ID: fmt.Sprintf("cp%d", uid), Recipient: "x@example.com"}.bytes()}
	}
	if _, err := e.svc.RecordBatch(e.ctx, []tracking.Incoming{msg(1), msg(2)}, &tracking.Checkpoint{MailboxID: mb, Folder: "INBOX", UIDValidity: 5, LastUID: 2}); err != nil {
		t.Fatal(err)
	}
	if f := folder(); f.UIDValidity != 5 || f.LastUID != 2 || f.WorkspaceID != e.ws {
		t.Fatalf("checkpoint = %+v", f)
	}
	// A stale checkpoint never moves it back; a new UIDVALIDITY replaces it.
	if _, err := e.svc.RecordBatch(e.ctx, nil, &tracking.Checkpoint{MailboxID: mb, Folder: "INBOX", UIDValidity: 5, LastUID: 1}); err != nil {
		t.Fatal(err)
	}
	if f := folder(); f.LastUID != 2 {
		t.Fatalf("checkpoint moved back: %+v", f)
	}
	if _, err := e.svc.RecordBatch(e.ctx, nil, &tracking.Checkpoint{MailboxID: mb, Folder: "INBOX", UIDValidity: 6, LastUID: 1}); err != nil {
		t.Fatal(err)
	}
	if f := folder(); f.UIDValidity != 6 || f.LastUID != 1 {
		t.Fatalf("new UIDVALIDITY: %+v", f)
	}
	// A checkpoint that cannot be written rolls the whole batch back.
	_, err := e.svc.RecordBatch(e.ctx, []tracking.Incoming{msg(3)}, &tracking.Checkpoint{MailboxID: mb + 1000, Folder: "INBOX", UIDValidity: 5, LastUID: 3})
	if err == nil {
		t.Fatal("checkpoint of a missing mailbox accepted")
	}
	if n := e.count("raw_messages", "uid = 3"); n != 0 {
		t.Fatalf("batch not rolled back: %d messages", n)
	}
}

// TestRecordSoftBouncesAndSends: soft bounces with no registered send count
// as a send each (30 min, 1 h, 2 h); a registered send resets nothing; the
// soft bounce of that send is the fourth consecutive one and stops the lead.
func TestRecordSoftBouncesAndSends(t *testing.T) {
	e := newEnv(t)
	camp := e.campaign(e.ws, "C", nil)
	lead := e.lead(e.ws, camp, "soft@example.com", nil)
	soft := func(id string) {
		e.record(tracking.Incoming{Raw: bounce{ID: id, Recipient: "soft@example.com", Status: "4.2.2", Diag: softDiag}.bytes()})
	}
	want := []time.Duration{30 * time.Minute, time.Hour, 2 * time.Hour}
	for i, d := range want {
		soft(fmt.Sprintf("s%d", i))
		l := e.getLead(lead)
		if l.ConsecutiveSoftBounces != i+1 || l.RetryAfter == nil || !l.RetryAfter.Equal(e.now.Add(d)) || l.Status != store.LeadActive {
			t.Fatalf("after soft bounce %d: %+v (retry %v)", i+1, l, l.RetryAfter)
		}
		e.advance(10 * time.Minute)
	}
	// A registered send resets nothing: its outcome is not known yet.
	if _, err := e.svc.RecordSent(e.ctx, e.ws, []tracking.Sent{{CampaignID: camp, LeadID: lead, MessageID: "r1@example.org"}}); err != nil {
		t.Fatal(err)
	}
	if l := e.getLead(lead); l.ConsecutiveSoftBounces != 3 || !l.RetryAfter.Equal(e.now.Add(-10*time.Minute+2*time.Hour)) || l.LastSentAt == nil {
		t.Fatalf("after send: %+v", l)
	}
	// Its soft bounce makes the fourth consecutive soft-bounced send (the
	// three bounces before any registered send count as a send each).
	soft("t0")
	if l := e.getLead(lead); l.Status != store.LeadStopped || l.StopReason != tracking.StopSoftBounceLimit || l.ConsecutiveSoftBounces != 4 || l.BounceCount != 4 {
		t.Fatalf("after the send's soft bounce: %+v", l)
	}
	if n := e.count("suppressions", ""); n != 0 {
		t.Fatalf("soft bounces suppressed the address")
	}
	c := e.checkCounters(e.ws)
	if got := c.Campaigns[camp]; got.LeadsBounced != 1 || got.Soft != 4 || got.Sent != 1 {
		t.Fatalf("counters = %+v", got)
	}
}

func TestRecordWorkspaceSettings(t *testing.T) {
	e := newEnv(t)
	camp := e.campaign(e.ws, "C", nil)
	lead := e.lead(e.ws, camp, "keep@example.com", nil)
	no := false
	if err := store.SavePolicySettings(e.ctx, e.db, e.ws, store.PolicySettings{StopOnHard: &no, SuppressOnAddressInvalid: &no}); err != nil {
		t.Fatal(err)
	}
	out := e.record(tracking.Incoming{Raw: bounce{ID: "w1", Recipient: "keep@example.com"}.bytes()})
	if out.Events[0].Suppressed || out.Events[0].Effect != "" {
		t.Fatalf("outcome = %+v", out.Events[0])
	}
	if l := e.getLead(lead); l.Status != store.LeadActive || l.BounceCount != 1 {
		t.Fatalf("lead = %+v", l)
	}
	if n := e.count("suppressions", ""); n != 0 {
		t.Fatalf("suppressed despite the workspace setting")
	}
	// Another workspace keeps the defaults, and sees nothing of this one.
	ws2 := e.workspace("other")
	camp2 := e.campaign(ws2, "C2", nil)
	lead2 := e.lead(ws2, camp2, "keep@example.com", nil)
	out = e.record(tracking.Incoming{WorkspaceID: ws2, Raw: bounce{ID: "w1", Recipient: "keep@example.com"}.bytes()})
	if out.Duplicate || out.Events[0].LeadID != lead2 || !out.Events[0].Suppressed {
		t.Fatalf("other workspace outcome = %+v", out)
	}
	if l := e.getLead(lead2); l.Status != store.LeadStopped {
		t.Fatalf("other workspace lead = %+v", l)
	}
	e.checkCounters(e.ws)
	e.checkCounters(ws2)
}

// TestRecordHostileText: bytes PostgreSQL's text type refuses (NUL, invalid
// UTF-8) anywhere in a decoded result or a decoder error must not fail the
// batch.
func TestRecordHostileText(t *testing.T) {
	e := newEnv(t)
	bad := "550 5.1.1 \x00user\xff\xfe unknown " + string(make([]byte, 5000))
	svc := tracking.New(e.db, tracking.Options{Now: e.clock, Decode: func(raw []byte) ([]dsnResult, error) {
		if len(raw) < 20 {
			return nil, fmt.Errorf("dsn: decode header: bad byte \x00\xff in %q", raw)
		}
		return []dsnResult{{Kind: "bounce", Recipient: "x\x00y\xff@example.com", Status: "5.1.1", Diagnostic: bad,
			RemoteMTA: "mx\xff.example", Format: "rfc3464"}}, nil
	}})
	outs, err := svc.RecordBatch(e.ctx, []tracking.Incoming{
		{WorkspaceID: e.ws, Folder: "Inbox\xff", Raw: []byte("Subject: hostile bytes here\n\nbody\n")},
		{WorkspaceID: e.ws, Raw: []byte("x\x00\xff")},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(outs[0].Events) != 1 || outs[0].Events[0].Recipient != "xy\uFFFD@example.com" {
		t.Fatalf("outcome = %+v", outs[0])
	}
	if outs[1].DecodeStatus != store.DecodeUndecoded || outs[1].DecodeError == "" {
		t.Fatalf("undecoded outcome = %+v", outs[1])
	}
	var be store.BounceEvent
	e.db.First(&be, outs[0].Events[0].EventID)
	if len(be.Diagnostic) > 4000 || be.RemoteMTA != "mx.example" {
		t.Fatalf("stored diagnostic %d bytes, remote %q", len(be.Diagnostic), be.RemoteMTA)
	}
}

// TestWorkspaceIsolation: nothing of one workspace matches, stops or counts
// in another.
func TestWorkspaceIsolation(t *testing.T) {
	e := newEnv(t)
	other := e.workspace("other")
	campA := e.campaign(e.ws, "A", strp("shared-ext"))
	leadA := e.lead(e.ws, campA, "iso@example.com", strp("L"))
	campB := e.campaign(other, "B", nil)
	if _, err := e.svc.RecordSent(e.ctx, e.ws, []tracking.Sent{{CampaignID: campA, LeadID: leadA, MessageID: "iso-1@x", VERPToken: "isotok"}}); err != nil {
		t.Fatal(err)
	}
	// Registering a send for another workspace's lead is refused.
	_, err := e.svc.RecordSent(e.ctx, other, []tracking.Sent{{CampaignID: campB, LeadID: leadA, MessageID: "iso-2@x"}})
	if !errors.Is(err, tracking.ErrInvalidSent) {
		t.Fatalf("cross-workspace send: %v", err)
	}
	// A bounce in the other workspace carrying workspace A's identifiers
	// (headers, Message-ID, VERP token, address) matches nothing there.
	out := e.record(tracking.Incoming{WorkspaceID: other, Raw: bounce{ID: "iso-b", Recipient: "iso@example.com",
		OrigID: "iso-1@x", To: "bounces+isotok@mail.example.org",
		Campaign: strconv.FormatInt(campA, 10), Lead: strconv.FormatInt(leadA, 10)}.bytes()})
	if ev := out.Events[0]; ev.CampaignID != 0 || ev.LeadID != 0 {
		t.Fatalf("matched across workspaces: %+v", ev)
	}
	out = e.record(tracking.Incoming{WorkspaceID: other, Raw: bounce{ID: "iso-c", Recipient: "iso@example.com",
		Campaign: "shared-ext", Lead: "L"}.bytes()})
	if ev := out.Events[0]; ev.CampaignID != 0 || ev.LeadID != 0 {
		t.Fatalf("matched across workspaces by external IDs: %+v", ev)
	}
	if l := e.getLead(leadA); l.Status != store.LeadActive || l.BounceCount != 0 {
		t.Fatalf("lead of workspace A changed: %+v", l)
	}
	if n := e.count("suppressions", "workspace_id = ?", e.ws); n != 0 {
		t.Fatal("workspace A got a suppression from workspace B's bounce")
	}
	a := e.checkCounters(e.ws)
	if got := a.Campaigns[campA]; got.Events != 0 || got.Sent != 1 {
		t.Fatalf("workspace A counters = %+v", got)
	}
	e.checkCounters(other)
}

// TestRecordDecodesEachMessageOnce: a batch decodes a message the workspace
// already holds not at all, and copies within the batch once, while the
// outcomes still report every copy as a duplicate.
func TestRecordDecodesEachMessageOnce(t *testing.T) {
	e := newEnv(t)
	var decoded atomic.Int64
	svc := tracking.New(e.db, tracking.Options{Now: e.clock, Decode: func(raw []byte) ([]dsnResult, error) {
		decoded.Add(1)
		return dsn.Decode(raw)
	}})
	old := bounce{ID: "once1", Recipient: "once@example.com", Status: "5.1.1", Diag: "550 5.1.1 no such user"}.bytes()
	if _, err := svc.Record(e.ctx, tracking.Incoming{WorkspaceID: e.ws, Raw: old}); err != nil {
		t.Fatal(err)
	}
	if n := decoded.Load(); n != 1 {
		t.Fatalf("first record decoded %d times, want 1", n)
	}
	fresh := bounce{ID: "once2", Recipient: "once@example.com", Status: "5.1.1", Diag: "550 5.1.1 no such user"}.bytes()
	outs, err := svc.RecordBatch(e.ctx, []tracking.Incoming{
		{WorkspaceID: e.ws, Raw: old}, {WorkspaceID: e.ws, Raw: fresh}, {WorkspaceID: e.ws, Raw: fresh}, {WorkspaceID: e.ws, Raw: old},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := decoded.Load(); n != 2 {
		t.Fatalf("after the batch: %d decodes, want 2 (the new message once)", n)
	}
	for i, dup := range []bool{true, false, true, true} {
		if outs[i].Duplicate != dup || outs[i].DecodeStatus != store.DecodeDecoded {
			t.Fatalf("outcome %d = %+v, want duplicate %v, decoded", i, outs[i], dup)
		}
	}
	if outs[0].RawMessageID != outs[3].RawMessageID || outs[1].RawMessageID != outs[2].RawMessageID {
		t.Fatalf("copies point at different rows: %+v", outs)
	}
}
