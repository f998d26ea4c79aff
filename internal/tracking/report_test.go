package tracking_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/internal/tracking"
)

func TestReportReadsFromCounters(t *testing.T) {
	e := newEnv(t)
	camp := e.campaign(e.ws, "R", nil)
	other := e.campaign(e.ws, "R2", nil)
	mb := e.mailbox(e.ws)
	gmail := e.lead(e.ws, camp, "a@gmail.com", nil)
	plain := e.lead(e.ws, camp, "b@example.com", nil)
	third := e.lead(e.ws, other, "c@example.com", nil)
	// Kathmandu is UTC+05:45: 18:20 UTC is 00:05 the next day there.
	day := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	if _, err := e.svc.RecordSent(e.ctx, e.ws, []tracking.Sent{
		{CampaignID: camp, LeadID: gmail, MailboxID: mb, MessageID: "r1@x", SentAt: day.Add(18*time.Hour + 10*time.Minute)},
		{CampaignID: camp, LeadID: plain, MailboxID: mb, MessageID: "r2@x", SentAt: day.Add(18*time.Hour + 20*time.Minute)},
		{CampaignID: other, LeadID: third, MessageID: "r3@x", SentAt: day},
	}); err != nil {
		t.Fatal(err)
	}
	rec := func(b bounce, at time.Time) {
		if _, err := e.svc.Record(e.ctx, tracking.Incoming{WorkspaceID: e.ws, MailboxID: mb, Raw: b.bytes(), ReceivedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	rec(bounce{ID: "q1", Recipient: "a@gmail.com", OrigID: "r1@x", Status: "4.2.2", Diag: softDiag, RemoteMTA: "gmail-smtp-in.l.google.com"}, day.Add(18*time.Hour+14*time.Minute))
	rec(bounce{ID: "q2", Recipient: "b@example.com", OrigID: "r2@x"}, day.Add(18*time.Hour+30*time.Minute))
	rec(bounce{ID: "q3", Recipient: "nobody@example.com"}, day.Add(19*time.Hour))
	rec(bounce{ID: "q4", Recipient: "c@example.com", Status: "5.7.1", Diag: blockedDiag}, day.Add(20*time.Hour))

	tot, err := store.ReportTotals(e.ctx, e.db, e.ws, &camp)
	if err != nil {
		t.Fatal(err)
	}
	if tot.Sent != 2 || tot.Bounced != 2 || tot.Hard != 1 || tot.Soft != 1 || tot.LeadsBounced != 2 {
		t.Fatalf("campaign totals = %+v", tot)
	}
	all, err := store.ReportTotals(e.ctx, e.db, e.ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	if all.Sent != 3 || all.Bounced != 3 || all.Hard != 2 { // the unmatched q3 is not part of it
		t.Fatalf("workspace totals = %+v", all)
	}
	zero := int64(0)
	if un, _ := store.ReportTotals(e.ctx, e.db, e.ws, &zero); un.Events != 1 {
		t.Fatalf("unmatched totals = %+v", un)
	}
	labels, err := store.ReportLabels(e.ctx, e.db, e.ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.LabelCodeCount{
		{Label: "Blocked", Class: "hard", Code: "5.7.1", Events: 1},
		{Label: "Invalid recipient", Class: "hard", Code: "5.1.1", Events: 1},
		{Label: "Mailbox full", Class: "soft", Code: "4.2.2", Events: 1},
	}
	if fmt.Sprint(labels) != fmt.Sprint(want) {
		t.Fatalf("labels = %+v\nwant %+v", labels, want)
	}
	prov, err := store.ReportDimension(e.ctx, e.db, e.ws, &camp, store.DimensionProvider)
	if err != nil {
		t.Fatal(err)
	}
	if len(prov) != 2 || prov[0].Value != "google" || prov[0].Sent != 1 || prov[0].Soft != 1 || prov[1].Value != "other" || prov[1].Hard != 1 {
		t.Fatalf("providers = %+v", prov)
	}
	mbx, err := store.ReportDimension(e.ctx, e.db, e.ws, &camp, store.DimensionMailbox)
	if err != nil {
		t.Fatal(err)
	}
	if len(mbx) != 1 || mbx[0].Value != strconv.FormatInt(mb, 10) || mbx[0].Sent != 2 || mbx[0].Bounced != 2 {
		t.Fatalf("mailboxes = %+v", mbx)
	}
	if _, err := store.ReportDimension(e.ctx, e.db, e.ws, &camp, "label"); err == nil {
		t.Fatal("unknown dimension accepted")
	}
	from, to := day.Add(-24*time.Hour), day.Add(48*time.Hour)
	utc, err := store.ReportDaily(e.ctx, e.db, e.ws, &camp, "UTC", from, to)
	if err != nil {
		t.Fatal(err)
	}
	if len(utc) != 1 || utc[0].Sent != 2 || utc[0].Bounced != 2 {
		t.Fatalf("UTC daily = %+v", utc)
	}
	ktm, err := store.ReportDaily(e.ctx, e.db, e.ws, &camp, "Asia/Kathmandu", from, to)
	if err != nil {
		t.Fatal(err)
	}
	// 18:10 and 18:14 UTC are 23:55 and 23:59 on the 29th; 18:20 and 18:30
	// are 00:05 and 00:15 on the 30th.
	if len(ktm) != 2 || ktm[0].Day.Day() != 29 || ktm[0].Sent != 1 || ktm[0].Soft != 1 ||
		ktm[1].Day.Day() != 30 || ktm[1].Sent != 1 || ktm[1].Hard != 1 {
		t.Fatalf("Kathmandu daily = %+v", ktm)
	}
	if _, err := store.ReportDaily(e.ctx, e.db, e.ws, &camp, "Mars/Olympus", from, to); err == nil {
		t.Fatal("unknown time zone accepted")
	}
}

// TestCountersExactUnderRandomLoad records a random stream with duplicates,
// copies, sends, concurrent workers and reprocessing, then checks that every
// counter equals an aggregation from scratch over events and sent messages.
func TestCountersExactUnderRandomLoad(t *testing.T) {
	e := newEnv(t)
	rng := rand.New(rand.NewPCG(1, 2))
	old := tracking.New(e.db, tracking.Options{Now: e.clock, Decode: oldDecoder})
	var camps []int64
	type lref struct {
		camp, id int64
		email    string
	}
	var leads []lref
	for c := range 3 {
		camp := e.campaign(e.ws, fmt.Sprintf("c%d", c), nil)
		camps = append(camps, camp)
		for l := range 15 {
			email := fmt.Sprintf("l%d.%d@example.com", c, l)
			leads = append(leads, lref{camp, e.lead(e.ws, camp, email, nil), email})
		}
	}
	mb := e.mailbox(e.ws)
	var msgs []tracking.Incoming
	base := e.now.Add(-48 * time.Hour)
	for i := range 300 {
		l := leads[rng.IntN(len(leads))]
		b := bounce{ID: fmt.Sprintf("rnd%d", i), Recipient: l.email}
		if i%3 == 0 {
			b.ID = "twin" + b.ID // the old decoder adds a phantom recipient
		}
		switch rng.IntN(5) {
		case 0:
			b.Status, b.Diag = "4.2.2", softDiag
		case 1:
			b.Status, b.Diag = "5.7.1", blockedDiag
		case 2:
			b.Action, b.Status, b.Diag = "delayed", "4.4.1", "451 4.4.1 timeout"
		case 3:
			b.Recipient = fmt.Sprintf("x%d@example.net", i)
		}
		if rng.IntN(4) == 0 {
			b.Campaign, b.Lead = strconv.FormatInt(l.camp, 10), strconv.FormatInt(l.id, 10)
		}
		msgs = append(msgs, tracking.Incoming{WorkspaceID: e.ws, MailboxID: mb, Folder: "INBOX", UID: uint32(i + 1),
			Raw: b.bytes(), ReceivedAt: base.Add(time.Duration(rng.IntN(48*60)) * time.Minute)})
	}
	// Sends interleaved, then four workers over overlapping slices, half of
	// them with the old decoder, with copies from a second folder.
	var sends []tracking.Sent
	for i, l := range leads {
		sends = append(sends, tracking.Sent{CampaignID: l.camp, LeadID: l.id, MailboxID: mb,
			MessageID: fmt.Sprintf("snd%d@x", i), SentAt: base.Add(time.Duration(i) * time.Hour / 2)})
	}
	if _, err := e.svc.RecordSent(e.ctx, e.ws, sends[:20]); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			svc := e.svc
			if w%2 == 1 {
				svc = old
			}
			start := w * 50
			for i := start; i < len(msgs); i += 25 {
				batch := append([]tracking.Incoming(nil), msgs[i:min(i+25, len(msgs))]...)
				if rng := i % 7; rng == 0 && len(batch) > 0 {
					cp := batch[0]
					cp.Folder = "Copies"
					batch = append(batch, cp)
				}
				if _, err := svc.RecordBatch(e.ctx, batch, nil); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	// A reprocessing run races the workers.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 3 {
			if _, err := e.svc.Reprocess(e.ctx, tracking.ReprocessOptions{BatchSize: 40}); err != nil {
				errs <- err
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if _, err := e.svc.RecordSent(e.ctx, e.ws, sends[10:]); err != nil {
		t.Fatal(err)
	}
	if n := e.count("raw_messages", ""); n != int64(len(msgs)) {
		t.Fatalf("raw messages = %d, want %d", n, len(msgs))
	}
	e.checkCounters(e.ws)
	if _, err := e.svc.Reprocess(e.ctx, tracking.ReprocessOptions{BatchSize: 37}); err != nil {
		t.Fatal(err)
	}
	e.checkCounters(e.ws)
	if n := e.count("bounce_events", "recipient = 'phantom@example.com'"); n != 0 {
		t.Fatalf("%d phantom events survived reprocessing", n)
	}
	if _, err := old.Reprocess(e.ctx, tracking.ReprocessOptions{Since: base.Add(24 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	e.checkCounters(e.ws)
	// Reports from counters agree with the totals over all campaigns.
	all, err := store.ReportTotals(e.ctx, e.db, e.ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sum store.Metrics
	for _, c := range camps {
		tot, err := store.ReportTotals(e.ctx, e.db, e.ws, &c)
		if err != nil {
			t.Fatal(err)
		}
		sum.Add(tot.Metrics)
	}
	if sum != all.Metrics || all.Sent != int64(len(sends)) {
		t.Fatalf("sum of campaigns %+v != workspace %+v", sum, all.Metrics)
	}
}

func TestRecountCountersRepairs(t *testing.T) {
	e := newEnv(t)
	camp := e.campaign(e.ws, "R", nil)
	lead := e.lead(e.ws, camp, "a@example.com", nil)
	keep := e.lead(e.ws, camp, "b@example.com", nil)
	if _, err := e.svc.RecordSent(e.ctx, e.ws, []tracking.Sent{
		{CampaignID: camp, LeadID: lead, MessageID: "x1@x"}, {CampaignID: camp, LeadID: keep, MessageID: "x2@x"},
	}); err != nil {
		t.Fatal(err)
	}
	e.record(tracking.Incoming{Raw: bounce{ID: "rc1", Recipient: "a@example.com", OrigID: "x1@x"}.bytes()})
	e.record(tracking.Incoming{Raw: bounce{ID: "rc2", Recipient: "b@example.com", Status: "4.2.2", Diag: softDiag}.bytes()})
	// Deleting a lead (its sends cascade, its events lose the lead) leaves the
	// counters behind until they are recounted.
	if err := e.db.Exec("DELETE FROM leads WHERE id = ?", lead).Error; err != nil {
		t.Fatal(err)
	}
	stored, _ := store.StoredCounters(e.ctx, e.db, e.ws)
	agg, _ := store.AggregateCounters(e.ctx, e.db, e.ws)
	if fmt.Sprint(stored.Campaigns) == fmt.Sprint(agg.Campaigns) {
		t.Fatal("deletion did not make the counters stale; the test proves nothing")
	}
	if err := e.db.Transaction(func(tx *gorm.DB) error { return store.RecountCounters(e.ctx, tx, e.ws) }); err != nil {
		t.Fatal(err)
	}
	c := e.checkCounters(e.ws)
	if got := c.Campaigns[camp]; got.Sent != 1 || got.Bounced != 2 || got.LeadsBounced != 1 {
		t.Fatalf("recounted = %+v", got)
	}
}
