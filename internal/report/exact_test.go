package report

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/dbtest"
	"github.com/rebound-hq/rebound/internal/dsn"
	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/internal/tracking"
)

// skewedDecoder stands for an older decoder release: it reads every 5.1.1
// as a 4.2.2 mailbox-full deferral and every 5.7.1 block as a 4.7.1 soft
// one, and reports a phantom second recipient for bounces whose ID starts
// with "twin". Reprocessing with the current decoder rewrites, deletes and
// creates events, which the counters must follow.
func skewedDecoder(raw []byte) ([]dsn.Result, error) {
	res, err := dsn.Decode(raw)
	if err != nil {
		return nil, err
	}
	for i := range res {
		switch res[i].Status {
		case "5.1.1":
			res[i].Status, res[i].ReplyCode, res[i].Diagnostic = "4.2.2", "452", outcomes[1].diag
		case "5.7.1":
			res[i].Status, res[i].ReplyCode = "4.7.1", "450"
		}
	}
	if strings.Contains(string(raw), "Message-ID: <twin") && len(res) > 0 {
		extra := res[0]
		extra.Recipient = "phantom@example.com"
		res = append(res, extra)
	}
	return res, nil
}

type fixture struct {
	t     *testing.T
	ctx   context.Context
	db    *gorm.DB
	svc   *tracking.Service
	old   *tracking.Service
	now   time.Time
	ws    int64
	camps []int64
	mbs   []int64
	leads []leadRef
	// cached serves every check through one cache: a report kept from an
	// earlier phase must not be served once its figures changed.
	cached *Service
}

type leadRef struct {
	camp, id int64
	email    string
}

func (f *fixture) create(v any) {
	f.t.Helper()
	if err := f.db.Create(v).Error; err != nil {
		f.t.Fatalf("create %T: %v", v, err)
	}
}

var domains = []string{"gmail.com", "outlook.com", "yahoo.com", "icloud.com", "example.com", "example.net"}

// populate makes a workspace with campaigns, mailboxes and leads.
func (f *fixture) populate(name string, nCamp, leadsPer int) {
	w := &store.Workspace{Name: name}
	f.create(w)
	f.ws = w.ID
	for i := range 3 {
		m := &store.Mailbox{WorkspaceID: f.ws, Name: fmt.Sprintf("sender %d", i), Host: "imap.example.org", Port: 993,
			TLSMode: "tls", AuthKind: "password", Username: "u", SecretSealed: []byte{1}, SecretKeyID: "k1",
			Folders: store.StringArray{"INBOX"}, Status: store.MailboxActive, SyncIntervalSeconds: 300, ProcessedAction: "none"}
		f.create(m)
		f.mbs = append(f.mbs, m.ID)
	}
	for c := range nCamp {
		camp := &store.Campaign{WorkspaceID: f.ws, Name: fmt.Sprintf("%s campaign %d", name, c), Status: "active"}
		f.create(camp)
		f.camps = append(f.camps, camp.ID)
		for l := range leadsPer {
			email := fmt.Sprintf("%s.c%d.l%d@%s", strings.ToLower(name), c, l, domains[l%len(domains)])
			lead := &store.Lead{WorkspaceID: f.ws, CampaignID: camp.ID, Email: email, Status: store.LeadActive}
			f.create(lead)
			f.leads = append(f.leads, leadRef{camp.ID, lead.ID, email})
		}
	}
}

// TestReportExactUnderRandomLoad records 10,000 messages (unique bounces,
// auto-replies, duplicates and copies from a second folder) with four
// concurrent workers, half of them with an older decoder, sends registered
// meanwhile, then reprocesses; after each phase every figure of every
// report (each campaign and the workspace, five time zones including a
// change from summer time, two ranges)
// must equal an aggregation written from scratch over bounce_events and
// sent_messages, and a second workspace's activity must not show.
func TestReportExactUnderRandomLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 recordings against PostgreSQL; skipped in -short mode")
	}
	db := dbtest.New(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	f := &fixture{t: t, ctx: ctx, db: db, now: now,
		svc: tracking.New(db, tracking.Options{Now: clock}),
		old: tracking.New(db, tracking.Options{Now: clock, Decode: skewedDecoder})}
	f.populate("Acme", 4, 60)
	other := &fixture{t: t, ctx: ctx, db: db, now: now, svc: f.svc, old: f.old}
	other.populate("Bolt", 1, 12)

	rng := rand.New(rand.NewPCG(9, 10))
	base := time.Date(2026, 10, 20, 0, 0, 0, 0, time.UTC) // Europe leaves summer time on the 25th
	span := 10 * 24 * time.Hour
	at := func() time.Time { return base.Add(time.Duration(rng.Int64N(int64(span/time.Minute))) * time.Minute) }

	// Sends: three per lead over the ten days, mailbox by lead.
	type sentRef struct {
		msgID string
		lead  leadRef
	}
	var sends []tracking.Sent
	var sentRefs []sentRef
	for i, l := range f.leads {
		for s := range 3 {
			id := fmt.Sprintf("s%d.%d@acme.example", i, s)
			mb := f.mbs[i%len(f.mbs)]
			if i%7 == 0 {
				mb = 0 // not a connected mailbox: the unknown mailbox row
			}
			sends = append(sends, tracking.Sent{CampaignID: l.camp, LeadID: l.id, MailboxID: mb, MessageID: id, SentAt: at()})
			sentRefs = append(sentRefs, sentRef{id, l})
		}
	}

	// 10,000 recordings in all: unique messages, then copies of them.
	const total = 10000
	var msgs []tracking.Incoming
	uid := uint32(0)
	add := func(raw []byte, when time.Time, folder string) {
		uid++
		msgs = append(msgs, tracking.Incoming{WorkspaceID: f.ws, MailboxID: f.mbs[int(uid)%len(f.mbs)], Folder: folder,
			UIDValidity: 1, UID: uid, Raw: raw, ReceivedAt: when})
	}
	// A burst: 40 sender-side blocks in one hour for the first campaign.
	burstAt := time.Date(2026, 10, 24, 13, 5, 0, 0, time.UTC)
	for i := range 40 {
		l := f.leads[rng.IntN(60)]
		o := outcomes[2]
		add(dsnMsg{ID: fmt.Sprintf("burst%d", i), Recipient: l.email, Status: o.status, Diag: o.diag,
			Campaign: strconv.FormatInt(l.camp, 10), Lead: strconv.FormatInt(l.id, 10)}.bytes(),
			burstAt.Add(time.Duration(i)*time.Minute), "INBOX")
	}
	unique := total * 85 / 100
	var gmail []leadRef
	for _, l := range f.leads {
		if strings.HasSuffix(l.email, "@gmail.com") {
			gmail = append(gmail, l)
		}
	}
	for i := len(msgs); i < unique; i++ {
		l := f.leads[rng.IntN(len(f.leads))]
		if rng.IntN(4) == 0 {
			l = gmail[rng.IntN(len(gmail))] // Gmail defers this sender more than the rest
		}
		if rng.IntN(12) == 0 {
			add(autoReplyMsg(fmt.Sprintf("ooo%d", i), l.email), at(), "INBOX")
			continue
		}
		o := outcomes[rng.IntN(len(outcomes))]
		if strings.HasSuffix(l.email, "@gmail.com") && rng.IntN(5) != 0 {
			o = gmailDeferral
		}
		m := dsnMsg{ID: fmt.Sprintf("b%d", i), Recipient: l.email, Status: o.status, Action: o.action, RemoteMTA: o.mta}
		if i%5 == 0 {
			m.ID = "twin" + m.ID
		}
		m.Diag = o.diag
		if strings.Contains(o.diag, "%s") {
			m.Diag = fmt.Sprintf(o.diag, l.email)
		}
		switch r := rng.IntN(20); {
		case r < 5: // header match
			m.Campaign, m.Lead = strconv.FormatInt(l.camp, 10), strconv.FormatInt(l.id, 10)
		case r < 13: // Message-ID of a registered send of this lead
			for {
				s := sentRefs[rng.IntN(len(sentRefs))]
				if s.lead == l {
					m.OrigID = s.msgID
					break
				}
				if rng.IntN(4) == 0 {
					m.OrigID = fmt.Sprintf("s%d.%d@acme.example", slices.Index(f.leads, l), rng.IntN(3))
					break
				}
			}
		case r < 18: // recipient only
		default: // nobody we know: unmatched
			m.Recipient = fmt.Sprintf("stranger%d@example.org", i)
			m.Diag = strings.ReplaceAll(m.Diag, l.email, m.Recipient)
		}
		add(m.bytes(), at(), "INBOX")
	}
	for len(msgs) < total {
		src := msgs[rng.IntN(unique)]
		cp := src
		uid++
		cp.UID = uid
		if rng.IntN(2) == 0 {
			cp.Folder = "Copies"
			cp.Raw = append([]byte(fmt.Sprintf("Received: from relay%d.example.org by mx; Mon, 23 Nov 2026\n", uid)), src.Raw...)
		}
		msgs = append(msgs, cp)
	}
	rng.Shuffle(len(msgs), func(i, j int) { msgs[i], msgs[j] = msgs[j], msgs[i] })

	// The second workspace: a few sends and bounces that must not show.
	var otherSends []tracking.Sent
	for i, l := range other.leads {
		otherSends = append(otherSends, tracking.Sent{CampaignID: l.camp, LeadID: l.id, MailboxID: other.mbs[0],
			MessageID: fmt.Sprintf("o%d@bolt.example", i), SentAt: at()})
	}
	if _, err := f.svc.RecordSent(ctx, other.ws, otherSends); err != nil {
		t.Fatal(err)
	}
	for i, l := range other.leads {
		o := outcomes[i%len(outcomes)]
		raw := dsnMsg{ID: fmt.Sprintf("bolt%d", i), Recipient: l.email, Status: o.status, Action: o.action, Diag: o.diag,
			OrigID: fmt.Sprintf("o%d@bolt.example", i)}.bytes()
		if _, err := f.svc.Record(ctx, tracking.Incoming{WorkspaceID: other.ws, MailboxID: other.mbs[0], Folder: "INBOX", UID: uint32(i + 1), Raw: raw, ReceivedAt: burstAt}); err != nil {
			t.Fatal(err)
		}
	}

	// Four workers over interleaved batches, odd ones with the old decoder;
	// the sends are registered by a fifth, in slices, meanwhile.
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	const workers, batch = 4, 50
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			svc := f.svc
			if w%2 == 1 {
				svc = f.old
			}
			for i := w * batch; i < len(msgs); i += workers * batch {
				if _, err := svc.RecordBatch(ctx, msgs[i:min(i+batch, len(msgs))], nil); err != nil {
					errs <- fmt.Errorf("worker %d: %w", w, err)
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < len(sends); i += 100 {
			if _, err := f.svc.RecordSent(ctx, f.ws, sends[i:min(i+100, len(sends))]); err != nil {
				errs <- fmt.Errorf("sends: %w", err)
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("recorded %d messages and %d sends in %v", len(msgs), len(sends), time.Since(start).Round(time.Millisecond))
	var nRaw int64
	db.Raw("SELECT count(*) FROM raw_messages WHERE workspace_id = ?", f.ws).Scan(&nRaw)
	if nRaw != int64(unique) {
		t.Fatalf("raw messages = %d, want %d (duplicates must not be stored)", nRaw, unique)
	}
	f.checkAll("after recording", false)

	if _, err := f.svc.Reprocess(ctx, tracking.ReprocessOptions{BatchSize: 97}); err != nil {
		t.Fatal(err)
	}
	f.checkAll("after reprocessing with the current decoder", true)
	if _, err := f.old.Reprocess(ctx, tracking.ReprocessOptions{Since: base.Add(span / 2), BatchSize: 211}); err != nil {
		t.Fatal(err)
	}
	f.checkAll("after reprocessing the second half with the old decoder", false)
	// Deleting a campaign: its sends go, its events become unmatched, the
	// counters are recounted; its report is gone, the workspace's follows.
	gone := f.camps[1]
	if err := store.DeleteCampaign(ctx, db, f.ws, gone); err != nil {
		t.Fatal(err)
	}
	zone, _ := ParseZone("UTC")
	if _, err := f.cached.Bounces(ctx, Query{WorkspaceID: f.ws, CampaignID: gone, Zone: zone, From: base, To: base}); err != ErrNotFound {
		t.Fatalf("report of a deleted campaign: %v, want ErrNotFound", err)
	}
	f.camps = append(f.camps[:1], f.camps[2:]...)
	f.checkAll("after deleting a campaign", false)
	other.checkAll("the other workspace", false)
}

// checkAll compares every report of the fixture's workspace with the
// aggregation from scratch. wantSignals asks that the hard-bounce,
// deferral and burst signals all be present in the workspace's
// report (the data is built to raise them).
func (f *fixture) checkAll(phase string, wantSignals bool) {
	f.t.Helper()
	ref := loadReference(f.t, f.ctx, f.db, f.ws)
	svc := &Service{DB: f.db}
	if f.cached == nil {
		f.cached = &Service{DB: f.db, Cache: NewCache(1000)}
	}
	zones := []string{"UTC", "Asia/Kathmandu", "America/St_Johns", "Europe/Paris", "Pacific/Kiritimati"}
	ranges := [][2]string{{"2026-10-18", "2026-11-01"}, {"2026-10-24", "2026-10-26"}}
	scopes := append([]int64{0}, f.camps...)
	n := 0
	for _, c := range scopes {
		for _, zn := range zones {
			zone, err := ParseZone(zn)
			if err != nil {
				f.t.Fatal(err)
			}
			for _, rg := range ranges {
				from, to, _, err := Days(rg[0], rg[1], zone, f.now)
				if err != nil {
					f.t.Fatal(err)
				}
				q := Query{WorkspaceID: f.ws, CampaignID: c, Zone: zone, From: from, To: to}
				got, err := svc.Bounces(f.ctx, q)
				if err != nil {
					f.t.Fatalf("%s: report %+v: %v", phase, q, err)
				}
				want := ref.expect(f.t, q)
				for range 2 { // a miss, then a hit: both must be current
					js, cr, err := f.cached.BouncesJSON(f.ctx, q)
					if err != nil {
						f.t.Fatalf("%s: cached report %+v: %v", phase, q, err)
					}
					wj, _ := json.Marshal(want)
					if string(js) != string(wj) || fmt.Sprint(cr.burst) != fmt.Sprint(want.burst) {
						f.t.Fatalf("%s: campaign %d, %s, %v: cached report differs from the aggregation over events\n%s",
							phase, c, zn, rg, firstDiff(string(js), string(wj)))
					}
				}
				gj, _ := json.MarshalIndent(got, "", " ")
				wj, _ := json.MarshalIndent(want, "", " ")
				if string(gj) != string(wj) {
					f.t.Fatalf("%s: campaign %d, %s, %v: report differs from the aggregation over events\n%s",
						phase, c, zn, rg, firstDiff(string(gj), string(wj)))
				}
				if fmt.Sprint(got.burst) != fmt.Sprint(want.burst) {
					f.t.Fatalf("%s: campaign %d, %s, %v: burst %+v, want %+v", phase, c, zn, rg, got.burst, want.burst)
				}
				if wantSignals && c == 0 && rg == ranges[0] {
					var types []string
					for _, s := range got.Signals {
						types = append(types, s.Type)
					}
					for _, st := range []string{SignalHardBounceRate, SignalProviderDeferral, SignalBlockBurst} {
						if !slices.Contains(types, st) {
							f.t.Fatalf("%s: signals %v lack %s", phase, types, st)
						}
					}
				}
				n++
			}
		}
	}
	f.t.Logf("%s: %d reports equal the aggregation over events", phase, n)
}

// firstDiff shows the lines around the first difference of two texts.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		if i >= len(g) || i >= len(w) || g[i] != w[i] {
			lo := max(0, i-6)
			return fmt.Sprintf("got  (line %d): %s\nwant (line %d): %s", i, strings.Join(g[lo:min(len(g), i+2)], "\n"), i, strings.Join(w[lo:min(len(w), i+2)], "\n"))
		}
	}
	return ""
}

// refEvent and refSent are the rows of bounce_events and sent_messages the
// reference reads.
type refEvent struct {
	campaign, lead, mailbox          int64 // 0 for NULL
	kind, class, label, code, provid string
	at                               time.Time
}

type refSent struct {
	campaign, mailbox int64
	provider          string
	at                time.Time
}

type reference struct {
	ws     int64
	events []refEvent
	sent   []refSent
	names  map[int64]string // campaign names
	mnames map[int64]string // mailbox names
}

// loadReference reads every event and sent message of the workspace: the
// reference aggregates them in Go, without the counters.
func loadReference(t *testing.T, ctx context.Context, db *gorm.DB, ws int64) *reference {
	t.Helper()
	r := &reference{ws: ws, names: map[int64]string{}, mnames: map[int64]string{}}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	each := func(q string, scan func(*sql.Rows) error) {
		rows, err := sqlDB.QueryContext(ctx, q, ws)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				t.Fatal(err)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	each(`SELECT COALESCE(campaign_id, 0), COALESCE(lead_id, 0), COALESCE(sending_mailbox_id, 0), kind,
	             COALESCE(class, ''), label, status, reply_code, provider, occurred_at
	      FROM bounce_events WHERE workspace_id = $1`, func(rows *sql.Rows) error {
		var e refEvent
		var status, reply string
		if err := rows.Scan(&e.campaign, &e.lead, &e.mailbox, &e.kind, &e.class, &e.label, &status, &reply, &e.provid, &e.at); err != nil {
			return err
		}
		e.code = status
		if e.code == "" {
			e.code = reply
		}
		r.events = append(r.events, e)
		return nil
	})
	each(`SELECT campaign_id, COALESCE(mailbox_id, 0), provider, sent_at FROM sent_messages WHERE workspace_id = $1`, func(rows *sql.Rows) error {
		var s refSent
		if err := rows.Scan(&s.campaign, &s.mailbox, &s.provider, &s.at); err != nil {
			return err
		}
		r.sent = append(r.sent, s)
		return nil
	})
	each(`SELECT id, name FROM campaigns WHERE workspace_id = $1`, func(rows *sql.Rows) error {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return err
		}
		r.names[id] = name
		return nil
	})
	each(`SELECT id, name FROM mailboxes WHERE workspace_id = $1`, func(rows *sql.Rows) error {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return err
		}
		r.mnames[id] = name
		return nil
	})
	return r
}

// countEvent adds one event to c.
func countEvent(c *Counts, e refEvent) {
	c.Events++
	switch e.kind {
	case "bounce":
		c.Bounced++
	case "complaint":
		c.Complaints++
	case "auto_reply":
		c.AutoReplies++
	case "delayed":
		c.Delayed++
	case "delivered":
		c.Delivered++
	}
	switch e.class {
	case "hard":
		c.Hard++
	case "soft":
		c.Soft++
	}
}

// expect builds the report q must return, from the rows alone.
func (r *reference) expect(t *testing.T, q Query) *Report {
	t.Helper()
	in := func(c int64) bool {
		if q.CampaignID == 0 {
			return c != 0
		}
		return c == q.CampaignID
	}
	from, to := q.From.Format(time.DateOnly), q.To.Format(time.DateOnly)
	out := &Report{WorkspaceID: r.ws, From: from, To: to, TimeZone: q.Zone.String()}
	if q.CampaignID != 0 {
		id := q.CampaignID
		out.CampaignID, out.CampaignName = &id, r.names[id]
	}
	prov := map[string]*Counts{}
	fold := func(p string) string {
		if slices.Contains(Providers, p) {
			return p
		}
		return "other"
	}
	mbox := map[int64]*Counts{}
	day := map[string]*Counts{}
	get := func(m map[string]*Counts, k string) *Counts {
		if m[k] == nil {
			m[k] = &Counts{}
		}
		return m[k]
	}
	getM := func(k int64) *Counts {
		if mbox[k] == nil {
			mbox[k] = &Counts{}
		}
		return mbox[k]
	}
	for _, s := range r.sent {
		if !in(s.campaign) {
			continue
		}
		out.Totals.Sent++
		get(prov, fold(s.provider)).Sent++
		getM(s.mailbox).Sent++
		get(day, s.at.In(q.Zone).Format(time.DateOnly)).Sent++
	}
	leads := map[int64]bool{}
	type lc struct{ label, class, code string }
	labels := map[lc]int64{}
	lo := time.Date(q.From.Year(), q.From.Month(), q.From.Day(), 0, 0, 0, 0, q.Zone)
	hi := time.Date(q.To.Year(), q.To.Month(), q.To.Day()+1, 0, 0, 0, 0, q.Zone)
	type per struct{ bounced, blocks int64 }
	periods := map[time.Time]*per{}
	for _, e := range r.events {
		if !in(e.campaign) {
			continue
		}
		countEvent(&out.Totals.Counts, e)
		countEvent(get(prov, fold(e.provid)), e)
		countEvent(getM(e.mailbox), e)
		countEvent(get(day, e.at.In(q.Zone).Format(time.DateOnly)), e)
		if e.kind == "bounce" && e.lead != 0 {
			leads[e.lead] = true
		}
		labels[lc{e.label, e.class, e.code}]++
		if e.kind == "bounce" && !e.at.Before(lo) && e.at.Before(hi) {
			p := e.at.UTC().Truncate(15 * time.Minute)
			if periods[p] == nil {
				periods[p] = &per{}
			}
			periods[p].bounced++
			if slices.Contains(SenderSideLabels, e.label) {
				periods[p].blocks++
			}
		}
	}
	out.Totals.LeadsBounced = int64(len(leads))
	out.Totals.Rates = ratesOf(out.Totals.Counts)
	var lcs []labelCode
	for k, n := range labels {
		lcs = append(lcs, labelCode{k.label, k.class, k.code, n})
	}
	out.Labels = labelRows(lcs)
	for _, p := range Providers {
		var c Counts
		if prov[p] != nil {
			c = *prov[p]
		}
		out.Providers = append(out.Providers, ProviderRow{Provider: p, Counts: c, Rates: ratesOf(c)})
	}
	var ids []int64
	for id := range mbox {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if len(ids) > 0 && ids[0] == 0 {
		ids = append(ids[1:], 0) // the unknown mailbox last
	}
	out.Mailboxes = []MailboxRow{}
	for _, id := range ids {
		row := MailboxRow{Counts: *mbox[id], Rates: ratesOf(*mbox[id])}
		if id != 0 {
			id := id
			row.MailboxID, row.Name = &id, r.mnames[id]
		}
		out.Mailboxes = append(out.Mailboxes, row)
	}
	for d := q.From; !d.After(q.To); d = d.AddDate(0, 0, 1) {
		var c Counts
		if x := day[d.Format(time.DateOnly)]; x != nil {
			c = *x
		}
		out.Daily = append(out.Daily, DayRow{Date: d.Format(time.DateOnly), Counts: c, Rates: ratesOf(c)})
		out.DailyTotals.Counts.add(c)
	}
	out.DailyTotals.Rates = ratesOf(out.DailyTotals.Counts)
	// Burst: windows end at each period holding a bounce.
	var best *burst
	var windows int64
	var keys []time.Time
	for p := range periods {
		keys = append(keys, p)
	}
	slices.SortFunc(keys, func(a, b time.Time) int { return a.Compare(b) })
	for _, p := range keys {
		var w per
		for k := 0; k < 4; k++ {
			if x := periods[p.Add(-time.Duration(k)*15*time.Minute)]; x != nil {
				w.bounced += x.bounced
				w.blocks += x.blocks
			}
		}
		if w.blocks >= BurstMinBlocks && w.blocks*100 >= w.bounced*BurstMinSharePct {
			windows++
			if best == nil || w.blocks > best.Blocks {
				best = &burst{End: p.Add(15 * time.Minute), Blocks: w.blocks, Bounced: w.bounced}
			}
		}
	}
	if best != nil {
		best.Windows = windows
		out.burst = best
	}
	out.Signals = Signals(out)
	return out
}
