package tasks

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/mailbox/mailboxtest"
)

var (
	benchOnce sync.Once
	benchUser mailboxtest.DovecotUser
)

// BenchmarkSyncDovecot10k syncs a 10,000-message Dovecot INBOX (5,000
// DSNs, 5,000 ordinary messages) into a fresh PostgreSQL database through
// tracking, end to end: IMAP search, header triage, body fetch, decode,
// classify, match and record. It reports msgs/s and bounces/s; the target
// is at least 1,000 bounces/s. Loading the folder (once per process) and
// creating the database are not timed.
func BenchmarkSyncDovecot10k(b *testing.B) {
	const total, bounces = 10_000, 5_000
	b.StopTimer()
	benchOnce.Do(func() {
		benchUser = mailboxtest.Dovecot(b)
		mailboxtest.Append(b, benchUser.Client(b), "INBOX", mailboxtest.Mix(total, time.Now()))
	})
	if benchUser.User == "" {
		b.Fatal("benchmark mailbox was not loaded")
	}
	ctx := context.Background()
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		f := newFixture(b)
		id := f.createMailbox(b, benchUser, benchUser.Password)
		b.StartTimer()
		start := time.Now()
		st, err := f.syncer.SyncMailbox(ctx, id)
		elapsed += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if st.Seen != total {
			b.Fatalf("seen %d, want %d", st.Seen, total)
		}
		if n := f.count(b, `SELECT count(*) FROM bounce_events WHERE workspace_id = ?`, f.ws); n != bounces {
			b.Fatalf("%d bounce events, want %d", n, bounces)
		}
	}
	b.ReportMetric(float64(total*b.N)/elapsed.Seconds(), "msgs/s")
	b.ReportMetric(float64(bounces*b.N)/elapsed.Seconds(), "bounces/s")
}
