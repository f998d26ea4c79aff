package tracking_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/report"
	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/internal/tracking"
)

// TestReportReadsFromCounters records sends and bounces of two campaigns
// around a UTC evening plus an unmatched bounce, then checks the counter rows
// recording kept (store.StoredCounters, equal to the aggregation from
// scratch) and the report internal/report serves from them: totals per
// campaign, for the workspace and for unmatched events; labels; providers
// and mailboxes; the daily series in UTC and in Asia/Kathmandu, whose
// UTC+05:45 midnight only the 15-minute period counters can place exactly.
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

	stored := e.checkCounters(e.ws)
	if c := stored.Campaigns[camp]; c.Sent != 2 || c.Bounced != 2 || c.Hard != 1 || c.Soft != 1 || c.LeadsBounced != 2 {
		t.Fatalf("campaign counters = %+v", c)
	}
	if un := stored.Campaigns[0]; un.Events != 1 { // q3, unmatched, is kept under campaign 0
		t.Fatalf("unmatched counters = %+v", un)
	}
	// Dimension rows exist only for provider and mailbox; the campaign's
	// are one per provider and one for its sending mailbox.
	campDims := map[store.DimensionKey]store.Metrics{}
	for k, m := range stored.Dimensions {
		if k.Dimension != store.DimensionProvider && k.Dimension != store.DimensionMailbox {
			t.Errorf("counter row under dimension %q", k.Dimension)
		}
		if k.CampaignID == camp {
			campDims[k] = m
		}
	}
	wantDims := map[store.DimensionKey]store.Metrics{
		{CampaignID: camp, Dimension: store.DimensionProvider, Value: "google"}: {Sent: 1, Events: 1, Bounced: 1, Soft: 1},
		{CampaignID: camp, Dimension: store.DimensionProvider, Value: "other"}:  {Sent: 1, Events: 1, Bounced: 1, Hard: 1},
		{CampaignID: camp, Dimension: store.DimensionMailbox, Value: strconv.FormatInt(mb, 10)}: {
			Sent: 2, Events: 2, Bounced: 2, Hard: 1, Soft: 1},
	}
	if !reflect.DeepEqual(campDims, wantDims) {
		t.Fatalf("dimension counters = %+v\nwant %+v", campDims, wantDims)
	}
	// Period rows are 15 minutes long: r1 (18:10) and q1 (18:14) share one,
	// r2 (18:20) and q2 (18:30) fall in the next two.
	campPeriods := map[store.PeriodKey]store.Metrics{}
	for k, m := range stored.Periods {
		if k.CampaignID == camp {
			campPeriods[k] = m
		}
	}
	at := func(h, m int) store.PeriodKey {
		return store.PeriodKey{CampaignID: camp, PeriodStart: day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute)}
	}
	wantPeriods := map[store.PeriodKey]store.Metrics{
		at(18, 0):  {Sent: 1, Events: 1, Bounced: 1, Soft: 1},
		at(18, 15): {Sent: 1},
		at(18, 30): {Events: 1, Bounced: 1, Hard: 1},
	}
	if !reflect.DeepEqual(campPeriods, wantPeriods) {
		t.Fatalf("period counters = %+v\nwant %+v", campPeriods, wantPeriods)
	}

	// The product's report over those counters, days 28 to 30 November.
	rs := &report.Service{DB: e.db}
	get := func(campaign int64, zone string) *report.Report {
		t.Helper()
		loc, err := report.ParseZone(zone)
		if err != nil {
			t.Fatal(err)
		}
		r, err := rs.Bounces(e.ctx, report.Query{WorkspaceID: e.ws, CampaignID: campaign, Zone: loc,
			From: day.AddDate(0, 0, -1), To: day.AddDate(0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	daily := func(r *report.Report) string {
		var b strings.Builder
		for _, d := range r.Daily {
			fmt.Fprintf(&b, "%s %+v\n", d.Date, d.Counts)
		}
		return b.String()
	}
	r := get(camp, "UTC")
	if tot := r.Totals; tot.Sent != 2 || tot.Bounced != 2 || tot.Hard != 1 || tot.Soft != 1 || tot.LeadsBounced != 2 {
		t.Fatalf("campaign totals = %+v", tot)
	}
	provs := map[string]report.Counts{}
	for _, p := range r.Providers {
		provs[p.Provider] = p.Counts
	}
	wantProvs := map[string]report.Counts{
		"google": {Sent: 1, Events: 1, Bounced: 1, Soft: 1}, "microsoft": {}, "yahoo": {}, "apple": {},
		"other": {Sent: 1, Events: 1, Bounced: 1, Hard: 1},
	}
	if !reflect.DeepEqual(provs, wantProvs) {
		t.Fatalf("providers = %+v\nwant %+v", provs, wantProvs)
	}
	if m := r.Mailboxes; len(m) != 1 || m[0].MailboxID == nil || *m[0].MailboxID != mb || m[0].Sent != 2 || m[0].Bounced != 2 {
		t.Fatalf("mailboxes = %+v", m)
	}
	want := fmt.Sprintf("2026-11-28 %+v\n2026-11-29 %+v\n2026-11-30 %+v\n", report.Counts{},
		report.Counts{Sent: 2, Events: 2, Bounced: 2, Hard: 1, Soft: 1}, report.Counts{})
	if got := daily(r); got != want {
		t.Fatalf("UTC daily:\n%swant\n%s", got, want)
	}
	// 18:10 and 18:14 UTC are 23:55 and 23:59 on the 29th in Kathmandu;
	// 18:20 and 18:30 are 00:05 and 00:15 on the 30th.
	want = fmt.Sprintf("2026-11-28 %+v\n2026-11-29 %+v\n2026-11-30 %+v\n", report.Counts{},
		report.Counts{Sent: 1, Events: 1, Bounced: 1, Soft: 1}, report.Counts{Sent: 1, Events: 1, Bounced: 1, Hard: 1})
	if got := daily(get(camp, "Asia/Kathmandu")); got != want {
		t.Fatalf("Kathmandu daily:\n%swant\n%s", got, want)
	}
	if _, err := report.ParseZone("Mars/Olympus"); err == nil {
		t.Fatal("unknown time zone accepted")
	}

	// The workspace report: every campaign, the unmatched q3 left out.
	all := get(0, "UTC")
	if tot := all.Totals; tot.Sent != 3 || tot.Bounced != 3 || tot.Hard != 2 {
		t.Fatalf("workspace totals = %+v", tot)
	}
	var labels []string
	for _, l := range all.Labels {
		if l.Count == 0 {
			continue
		}
		codes := ""
		for _, c := range l.TopCodes {
			codes += fmt.Sprintf(" %s:%d", c.Code, c.Count)
		}
		labels = append(labels, fmt.Sprintf("%s: %d soft %d hard %d codes%s", l.Label, l.Count, l.Soft, l.Hard, codes))
	}
	wantLabels := []string{
		"Invalid recipient: 1 soft 0 hard 1 codes 5.1.1:1",
		"Mailbox full: 1 soft 1 hard 0 codes 4.2.2:1",
		"Blocked: 1 soft 0 hard 1 codes 5.7.1:1",
	}
	if !reflect.DeepEqual(labels, wantLabels) {
		t.Fatalf("labels = %q\nwant %q", labels, wantLabels)
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
	stored := e.checkCounters(e.ws)
	// The report's totals (its one-campaign SQL) equal each campaign's
	// counter row, and the workspace report's (its all-campaign SQL) their
	// sum, which counts every send.
	rs := &report.Service{DB: e.db}
	totals := func(campaign int64) report.Totals {
		t.Helper()
		r, err := rs.Bounces(e.ctx, report.Query{WorkspaceID: e.ws, CampaignID: campaign, Zone: time.UTC, From: e.now, To: e.now})
		if err != nil {
			t.Fatal(err)
		}
		return r.Totals
	}
	var sum store.Metrics
	var sumLeads int64
	for _, c := range camps {
		tot, row := totals(c), stored.Campaigns[c]
		if store.Metrics(tot.Counts) != row.Metrics || tot.LeadsBounced != row.LeadsBounced {
			t.Fatalf("campaign %d: report totals %+v, counters %+v", c, tot, row)
		}
		sum.Add(row.Metrics)
		sumLeads += row.LeadsBounced
	}
	all := totals(0)
	if store.Metrics(all.Counts) != sum || all.LeadsBounced != sumLeads || all.Sent != int64(len(sends)) {
		t.Fatalf("sum of campaigns %+v (%d leads) != workspace %+v", sum, sumLeads, all)
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
