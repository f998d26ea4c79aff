package tracking_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/internal/tracking"
)

// BenchmarkRecordBatch records batches of generated bounces (one
// RecordBatch, hence one transaction, per batch with a checkpoint) into
// PostgreSQL and reports events/s. The mix: 50% matched by original
// Message-ID, 20% by X-Rebound headers, 10% by VERP, 10% by recipient, 10%
// unmatched; hard, soft, blocked and delayed results; one message in ten
// reports two recipients; one in twenty is a copy of an earlier message.
func BenchmarkRecordBatch(b *testing.B) {
	for _, size := range []int{100, 500} {
		b.Run("batch="+strconv.Itoa(size), func(b *testing.B) { benchRecordBatch(b, size) })
	}
}

func benchRecordBatch(b *testing.B, size int) {
	e := newEnv(b)
	e.noAutovacuum()
	mb := e.mailbox(e.ws)
	const campaigns, leadsPer = 10, 500
	type leadRef struct {
		camp, lead int64
		email      string
	}
	var leads []leadRef
	var sent []tracking.Sent
	for c := range campaigns {
		camp := e.campaign(e.ws, fmt.Sprintf("camp %d", c), nil)
		rows := make([]store.Lead, leadsPer)
		for l := range rows {
			rows[l] = store.Lead{WorkspaceID: e.ws, CampaignID: camp, Email: fmt.Sprintf("lead%d.%d@example.com", c, l), Status: store.LeadActive}
		}
		if err := e.db.CreateInBatches(rows, 500).Error; err != nil {
			b.Fatal(err)
		}
		for _, l := range rows {
			leads = append(leads, leadRef{camp, l.ID, l.Email})
			sent = append(sent, tracking.Sent{CampaignID: camp, LeadID: l.ID, MailboxID: mb,
				MessageID: fmt.Sprintf("m%d@example.org", l.ID), VERPToken: fmt.Sprintf("v%d", l.ID),
				SentAt: e.now.Add(-time.Hour)})
		}
	}
	for i := 0; i < len(sent); i += 1000 {
		if _, err := e.svc.RecordSent(e.ctx, e.ws, sent[i:min(i+1000, len(sent))]); err != nil {
			b.Fatal(err)
		}
	}
	if err := e.db.Exec("ANALYZE").Error; err != nil { // autovacuum is off: give the planner statistics
		b.Fatal(err)
	}
	seq := 0
	gen := func() tracking.Incoming {
		seq++
		l := leads[(seq*7919)%len(leads)]
		bb := bounce{ID: fmt.Sprintf("bench-%d", seq), Recipient: l.email}
		switch seq % 4 {
		case 1:
			bb.Status, bb.Diag = "4.2.2", softDiag
		case 2:
			bb.Status, bb.Diag = "5.7.1", blockedDiag
		case 3:
			if seq%8 == 3 {
				bb.Action, bb.Status, bb.Diag = "delayed", "4.4.1", "451 4.4.1 connection timed out"
			}
		}
		switch r := seq % 10; {
		case r < 5:
			bb.OrigID = fmt.Sprintf("m%d@example.org", l.lead)
		case r < 7:
			bb.Campaign, bb.Lead = strconv.FormatInt(l.camp, 10), strconv.FormatInt(l.lead, 10)
		case r < 8:
			bb.To = fmt.Sprintf("bounces+v%d@mail.example.org", l.lead)
		case r < 9:
		default:
			bb.Recipient = fmt.Sprintf("stranger%d@example.net", seq)
		}
		if seq%10 == 4 {
			bb.More = []string{fmt.Sprintf("cc%d@example.net", seq)}
		}
		return tracking.Incoming{WorkspaceID: e.ws, MailboxID: mb, Folder: "INBOX", UIDValidity: 1, UID: uint32(seq),
			Raw: bb.bytes(), ReceivedAt: e.now.Add(time.Duration(seq) * time.Second)}
	}
	var events int
	var elapsed time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		batch := make([]tracking.Incoming, 0, size)
		for len(batch) < size {
			if len(batch) > 0 && len(batch)%20 == 0 {
				cp := batch[len(batch)-5]
				cp.Folder = "Bounces"
				batch = append(batch, cp)
				continue
			}
			batch = append(batch, gen())
		}
		cp := &tracking.Checkpoint{MailboxID: mb, Folder: "INBOX", UIDValidity: 1, LastUID: uint32(seq)}
		b.StartTimer()
		start := time.Now()
		outs, err := e.svc.RecordBatch(e.ctx, batch, cp)
		elapsed += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		for _, o := range outs {
			events += len(o.Events)
		}
	}
	b.ReportMetric(float64(events)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}

// BenchmarkReprocess re-decodes 2,000 stored messages per op, alternating
// between two decoder releases so that every run rewrites every event,
// timeline, lead state and counter; it reports messages/s.
func BenchmarkReprocess(b *testing.B) {
	e := newEnv(b)
	e.noAutovacuum()
	camp := e.campaign(e.ws, "c", nil)
	rows := make([]store.Lead, 500)
	for i := range rows {
		rows[i] = store.Lead{WorkspaceID: e.ws, CampaignID: camp, Email: fmt.Sprintf("r%d@example.com", i), Status: store.LeadActive,
			CreatedAt: e.now.Add(-24 * time.Hour)}
	}
	if err := e.db.CreateInBatches(rows, 500).Error; err != nil {
		b.Fatal(err)
	}
	const total = 2000
	var msgs []tracking.Incoming
	for i := range total {
		msgs = append(msgs, tracking.Incoming{WorkspaceID: e.ws, ReceivedAt: e.now.Add(time.Duration(i) * time.Second),
			Raw: bounce{ID: fmt.Sprintf("rp%d", i), Recipient: rows[i%len(rows)].Email}.bytes()})
	}
	for i := 0; i < total; i += 500 {
		if _, err := e.svc.RecordBatch(e.ctx, msgs[i:i+500], nil); err != nil {
			b.Fatal(err)
		}
	}
	if err := e.db.Exec("ANALYZE").Error; err != nil {
		b.Fatal(err)
	}
	old := tracking.New(e.db, tracking.Options{Now: e.clock, Decode: oldDecoder})
	var elapsed time.Duration
	var messages int
	b.ResetTimer()
	for i := range b.N {
		svc := old
		if i%2 == 1 {
			svc = e.svc
		}
		start := time.Now()
		st, err := svc.Reprocess(e.ctx, tracking.ReprocessOptions{BatchSize: 500})
		elapsed += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if st.Changed != total {
			b.Fatalf("run %d changed %d messages, want %d", i, st.Changed, total)
		}
		messages += st.Messages
	}
	b.ReportMetric(float64(messages)/elapsed.Seconds(), "msgs/s")
}
