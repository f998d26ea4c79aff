package mailbox

import (
	"context"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/mailbox/mailboxtest"
)

// BenchmarkTriageHeader measures header triage on a DSN header and an
// ordinary one (the per-candidate cost before any body is fetched).
func BenchmarkTriageHeader(b *testing.B) {
	now := time.Now()
	headers := [][]byte{headerOf(b, mailboxtest.Bounce(1, now)), headerOf(b, mailboxtest.Ordinary(2, now))}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		TriageHeader(headers[i%2])
	}
}

// BenchmarkSyncInProcess syncs 2,000 messages (half DSNs) from the
// in-process server into a memory recorder: the IMAP side alone, without
// Dovecot's I/O or PostgreSQL. Reports msgs/s.
func BenchmarkSyncInProcess(b *testing.B) {
	const total = 2000
	e := memEnv(b)
	mm := mailboxtest.Mix(total, time.Now())
	mailboxtest.Append(b, e.admin(b), "INBOX", mm)
	ctx := context.Background()
	var elapsed time.Duration
	for b.Loop() {
		rec := newMemRecorder()
		start := time.Now()
		st, err := e.sync(b, ctx, rec, e.settings)
		elapsed += time.Since(start)
		if err != nil || st.Seen != total || len(rec.bounces) != total/2 {
			b.Fatalf("%+v, %v", st, err)
		}
	}
	b.ReportMetric(float64(total*b.N)/elapsed.Seconds(), "msgs/s")
}
