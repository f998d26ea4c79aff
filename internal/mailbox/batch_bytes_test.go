package mailbox

import (
	"context"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/mailbox/mailboxtest"
)

// sizeRecorder records the byte total of every batch it receives.
type sizeRecorder struct {
	*memRecorder
	sizes []int64
}

func (r *sizeRecorder) RecordBatch(ctx context.Context, msgs []Message, cp Checkpoint) (BatchResult, error) {
	var n int64
	for _, m := range msgs {
		n += int64(len(m.Raw))
	}
	r.sizes = append(r.sizes, n)
	return r.memRecorder.RecordBatch(ctx, msgs, cp)
}

// TestSyncBatchBytes checks that a batch of large bounces is split by
// MaxBatchBytes (each batch holding at least one message), that every
// bounce is still recorded once, and that the checkpoint ends on the last
// UID.
func TestSyncBatchBytes(t *testing.T) {
	e := memEnv(t)
	now := time.Now()
	msgs := mailboxtest.Mix(20, now) // 10 bounces of about 1.3 kB
	mailboxtest.Append(t, e.admin(t), "INBOX", msgs)
	size := int64(len(msgs[0].Raw))
	limit := 3*size + size/2 // three bounces a batch

	conn, err := Dial(context.Background(), e.settings, e.creds, e.policy)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rec := &sizeRecorder{memRecorder: newMemRecorder()}
	st, err := conn.Sync(context.Background(), rec, &SyncOptions{MaxBatchBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.bounces) != 10 || rec.dup != 0 || st.Bounces != 10 || st.Seen != 20 {
		t.Fatalf("stats %+v, %d bounces, %d duplicates; want 20 seen, 10 bounces once", st, len(rec.bounces), rec.dup)
	}
	if cp := rec.snapshot()["INBOX"]; cp.LastUID != 20 {
		t.Fatalf("checkpoint %+v, want last UID 20", cp)
	}
	withMsgs := 0
	for i, n := range rec.sizes {
		if n > limit {
			t.Errorf("batch %d holds %d bytes, over the %d limit", i+1, n, limit)
		}
		if n > 0 {
			withMsgs++
		}
	}
	if withMsgs < 4 {
		t.Errorf("%d batches with messages (%v), want at least 4 of at most 3 bounces", withMsgs, rec.sizes)
	}

	// A message larger than the limit alone still goes through.
	e2 := memEnv(t)
	mailboxtest.Append(t, e2.admin(t), "INBOX", mailboxtest.Mix(4, now))
	conn2, err := Dial(context.Background(), e2.settings, e2.creds, e2.policy)
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close()
	rec2 := newMemRecorder()
	if _, err := conn2.Sync(context.Background(), rec2, &SyncOptions{MaxBatchBytes: 10}); err != nil || len(rec2.bounces) != 2 {
		t.Fatalf("limit below one message: %v, %d bounces; want 2", err, len(rec2.bounces))
	}
}
