package mailbox

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/mailbox/mailboxtest"
)

// TestDovecotEndToEnd loads 1,000 messages (the corpus bounces when the
// corpus is present, else generated DSNs, mixed with ordinary mail) into a
// Dovecot mailbox and checks: one sync records exactly the bounces, no flag
// changes on any message, a second sync adds nothing, and a sync whose
// connection is cut in the middle of a fetch is followed by one that ends
// with exact counts and no message recorded twice.
func TestDovecotEndToEnd(t *testing.T) {
	e := dovecotEnv(t)
	admin := e.admin(t)
	msgs, bounces := e2eMessages(t, 1000)
	mailboxtest.Append(t, admin, "INBOX", msgs)
	before := mailboxtest.Flags(t, admin, "INBOX")
	if len(before) != 1000 {
		t.Fatalf("mailbox holds %d messages, want 1000", len(before))
	}

	rec := newMemRecorder()
	rec.isBounce = func([]byte) bool { return true } // every fetched message counts
	ctx := context.Background()
	st, err := e.syncBatch(ctx, rec, e.settings, 0)
	if err != nil {
		t.Fatal(err)
	}
	if st.Seen != 1000 || st.Fetched != bounces || len(rec.messages) != bounces || rec.dup != 0 {
		t.Fatalf("sync: %+v, %d recorded, %d dups; want 1000 seen, %d bounces", st, len(rec.messages), rec.dup, bounces)
	}
	if after := mailboxtest.Flags(t, admin, "INBOX"); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatal("flags changed by sync")
	}
	st, err = e.syncBatch(ctx, rec, e.settings, 0)
	if err != nil || st.Seen != 0 || len(rec.messages) != bounces {
		t.Fatalf("second sync: %+v, %v; want nothing new", st, err)
	}
	t.Logf("1000 messages, %d bounces recorded, flags unchanged, second sync empty", bounces)
}

// TestDovecotDroppedConnection cuts the connection in the middle of the
// body fetch of a later batch, then syncs again over a sound connection.
func TestDovecotDroppedConnection(t *testing.T) {
	e := dovecotEnv(t)
	admin := e.admin(t)
	msgs, bounces := e2eMessages(t, 1000)
	mailboxtest.Append(t, admin, "INBOX", msgs)
	before := mailboxtest.Flags(t, admin, "INBOX")

	rec := newMemRecorder()
	rec.isBounce = func([]byte) bool { return true }
	ctx := context.Background()
	target := fmt.Sprintf("%s:%d", e.settings.Host, e.settings.Port)
	// ~600 KB into the session the proxy cuts both directions: well past
	// the first batch, in the middle of a FETCH of message bodies.
	proxy := mailboxtest.StartDropProxy(t, target, 600_000)
	s := e.settings
	s.Host, s.Port = hostPort(t, proxy.Addr())
	st, err := e.syncBatch(ctx, rec, s, 100)
	if err == nil {
		t.Fatalf("sync through a cut connection succeeded: %+v", st)
	}
	cp := rec.snapshot()["INBOX"]
	if st.Seen == 0 || st.Seen >= 1000 || cp.LastUID != uint32(st.Seen) || len(rec.messages) != st.Fetched {
		t.Fatalf("after the cut: stats %+v, checkpoint %+v, %d recorded; want a committed prefix", st, cp, len(rec.messages))
	}
	t.Logf("cut after %d committed messages (%d recorded): %v", st.Seen, len(rec.messages), err)

	ctx2, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	st2, err := e.syncBatch(ctx2, rec, e.settings, 100)
	if err != nil {
		t.Fatal(err)
	}
	if st.Seen+st2.Seen != 1000 || len(rec.messages) != bounces || rec.dup != 0 {
		t.Fatalf("after resume: seen %d+%d, %d recorded, %d dups; want 1000 seen, %d recorded, 0 dups",
			st.Seen, st2.Seen, len(rec.messages), rec.dup, bounces)
	}
	if after := mailboxtest.Flags(t, admin, "INBOX"); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatal("flags changed by sync")
	}
}
