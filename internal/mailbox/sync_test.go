package mailbox

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"github.com/rebound-hq/rebound/internal/mailbox/mailboxtest"
)

// syncEnv is a mailbox server plus the settings to reach it. The same
// tests run on the in-process server and on Dovecot (dovecot_test.go).
type syncEnv struct {
	settings Settings
	creds    Credentials
	policy   *Policy
	admin    func(t testing.TB) *imapclient.Client // a separate client for setup and checks
}

func memEnv(t testing.TB) *syncEnv {
	srv := startMemServer(t, true)
	host, port := hostPort(t, srv.addr)
	policy := &Policy{AllowPrivateHosts: true, TLSConfig: &tls.Config{RootCAs: srv.pool}, IOTimeout: 10 * time.Second}
	return &syncEnv{
		settings: Settings{Host: host, Port: port, Username: testUser},
		creds:    Credentials{Password: testPassword},
		policy:   policy,
		admin: func(t testing.TB) *imapclient.Client {
			c, err := imapclient.DialTLS(srv.addr, &imapclient.Options{TLSConfig: &tls.Config{RootCAs: srv.pool}})
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Login(testUser, testPassword).Wait(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			return c
		},
	}
}

// sync connects with s and syncs into rec from its checkpoints, in
// batches of 37.
func (e *syncEnv) sync(t testing.TB, ctx context.Context, rec *memRecorder, s Settings) (Stats, error) {
	t.Helper()
	return e.syncBatch(ctx, rec, s, 37)
}

// syncBatch is sync with batches of batch messages (0: the default).
func (e *syncEnv) syncBatch(ctx context.Context, rec *memRecorder, s Settings, batch int) (Stats, error) {
	conn, err := Dial(ctx, s, e.creds, e.policy)
	if err != nil {
		return Stats{}, err
	}
	defer conn.Close()
	return conn.Sync(ctx, rec, &SyncOptions{Checkpoints: rec.snapshot(), BatchSize: batch})
}

func TestSyncInProcess(t *testing.T) { runSyncSuite(t, memEnv) }

// runSyncSuite is the sync behaviour every server must show.
func runSyncSuite(t *testing.T, newEnv func(testing.TB) *syncEnv) {
	t.Run("first and repeated sync", func(t *testing.T) {
		e := newEnv(t)
		admin := e.admin(t)
		now := time.Now()
		msgs := mailboxtest.Mix(200, now)
		// Ten old messages outside the 30-day look-back window: skipped.
		for i := range 10 {
			d := now.AddDate(0, 0, -40)
			msgs = append([]mailboxtest.Message{{Raw: mailboxtest.Bounce(1000+i, d), Bounce: true, Date: d}}, msgs...)
		}
		mailboxtest.Append(t, admin, "INBOX", msgs)
		// One message already read by the customer keeps its \Seen.
		if _, err := admin.Select("INBOX", nil).Wait(); err != nil {
			t.Fatal(err)
		}
		if err := admin.Store(imap.SeqSetNum(12, 13), &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagSeen, imap.FlagFlagged}}, nil).Close(); err != nil {
			t.Fatal(err)
		}
		if err := admin.Unselect().Wait(); err != nil {
			t.Fatal(err)
		}
		before := mailboxtest.Flags(t, admin, "INBOX")

		rec := newMemRecorder()
		st, err := e.sync(t, context.Background(), rec, e.settings)
		if err != nil {
			t.Fatal(err)
		}
		if st.Seen != 200 || st.Fetched != 100 || st.Bounces != 100 || len(rec.bounces) != 100 || rec.dup != 0 {
			t.Fatalf("first sync: stats %+v, recorded %d bounces, %d dups; want 200 seen, 100 bounces", st, len(rec.bounces), rec.dup)
		}
		if !st.Folders[0].Rescan {
			t.Error("first sync not marked as a rescan")
		}
		if after := mailboxtest.Flags(t, admin, "INBOX"); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("flags changed by sync:\nbefore %v\nafter  %v", before, after)
		}
		cp := rec.snapshot()["INBOX"]
		if cp.LastUID != 210 {
			t.Fatalf("checkpoint = %+v, want last UID 210", cp)
		}

		st, err = e.sync(t, context.Background(), rec, e.settings)
		if err != nil || st.Seen != 0 || st.Bounces != 0 || rec.dup != 0 {
			t.Fatalf("second sync: %+v, %v, dups %d; want nothing new", st, err, rec.dup)
		}

		mailboxtest.Append(t, admin, "INBOX", []mailboxtest.Message{{Raw: mailboxtest.Bounce(5000, now), Bounce: true, Date: now}, {Raw: mailboxtest.Ordinary(5001, now), Date: now}})
		st, err = e.sync(t, context.Background(), rec, e.settings)
		if err != nil || st.Seen != 2 || st.Bounces != 1 || len(rec.bounces) != 101 || rec.dup != 0 {
			t.Fatalf("third sync: %+v, %v, %d bounces, %d dups; want 2 seen, 1 new bounce", st, err, len(rec.bounces), rec.dup)
		}
	})

	t.Run("large messages fetched partially", func(t *testing.T) {
		e := newEnv(t)
		mailboxtest.Append(t, e.admin(t), "INBOX", mailboxtest.Mix(10, time.Now()))
		conn, err := Dial(context.Background(), e.settings, e.creds, e.policy)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		rec := newMemRecorder()
		st, err := conn.Sync(context.Background(), rec, &SyncOptions{MaxMessageBytes: 600})
		if err != nil || st.Fetched != 5 || len(rec.messages) != 5 {
			t.Fatalf("%+v, %v, %d recorded", st, err, len(rec.messages))
		}
		for _, m := range rec.messages {
			if !m.Truncated || len(m.Raw) != 600 {
				t.Fatalf("message %d: truncated %v, %d bytes; want the first 600", m.UID, m.Truncated, len(m.Raw))
			}
		}
	})

	t.Run("recorder failure keeps checkpoint", func(t *testing.T) {
		e := newEnv(t)
		mailboxtest.Append(t, e.admin(t), "INBOX", mailboxtest.Mix(100, time.Now()))
		rec := newMemRecorder()
		rec.failAfter = 2 // first batch commits, second fails
		st, err := e.sync(t, context.Background(), rec, e.settings)
		if err == nil {
			t.Fatal("sync succeeded despite recorder failure")
		}
		if st.Seen != 37 || rec.snapshot()["INBOX"].LastUID != 37 {
			t.Fatalf("after failure: stats %+v, checkpoint %+v; want first batch only", st, rec.snapshot()["INBOX"])
		}
		st, err = e.sync(t, context.Background(), rec, e.settings)
		if err != nil || st.Seen != 63 || len(rec.bounces) != 50 || rec.dup != 0 {
			t.Fatalf("resumed sync: %+v, %v, %d bounces, %d dups", st, err, len(rec.bounces), rec.dup)
		}
	})

	t.Run("uidvalidity change rescans", func(t *testing.T) {
		e := newEnv(t)
		admin := e.admin(t)
		mailboxtest.Append(t, admin, "INBOX", mailboxtest.Mix(20, time.Now()))
		rec := newMemRecorder()
		if _, err := e.sync(t, context.Background(), rec, e.settings); err != nil {
			t.Fatal(err)
		}
		old := rec.snapshot()["INBOX"]
		// Recreate the folder: a new UIDVALIDITY, the same messages.
		if err := admin.Create("Bounces", nil).Wait(); err != nil {
			t.Fatal(err)
		}
		mailboxtest.Append(t, admin, "Bounces", mailboxtest.Mix(20, time.Now()))
		s := e.settings
		s.Folders = []string{"Bounces"}
		rec.checkpoints["Bounces"] = Checkpoint{Folder: "Bounces", UIDValidity: old.UIDValidity + 12345, LastUID: 20}
		st, err := e.sync(t, context.Background(), rec, s)
		if err != nil {
			t.Fatal(err)
		}
		if !st.Folders[0].Rescan || st.Seen != 20 || st.Bounces != 10 {
			t.Fatalf("after UIDVALIDITY change: %+v; want a rescan of 20", st.Folders[0])
		}
		if cp := rec.snapshot()["Bounces"]; cp.UIDValidity == old.UIDValidity+12345 || cp.LastUID != 20 {
			t.Fatalf("checkpoint after rescan = %+v", cp)
		}
	})

	t.Run("empty folder first sync stores uidvalidity", func(t *testing.T) {
		e := newEnv(t)
		rec := newMemRecorder()
		st, err := e.sync(t, context.Background(), rec, e.settings)
		if err != nil || st.Seen != 0 {
			t.Fatalf("%+v %v", st, err)
		}
		if cp, ok := rec.snapshot()["INBOX"]; !ok || cp.UIDValidity == 0 {
			t.Fatalf("checkpoint = %+v, %v", cp, ok)
		}
	})

	t.Run("processed bounces moved or labelled", func(t *testing.T) {
		e := newEnv(t)
		admin := e.admin(t)
		if err := admin.Create("Processed", nil).Wait(); err != nil {
			t.Fatal(err)
		}
		mailboxtest.Append(t, admin, "INBOX", mailboxtest.Mix(10, time.Now()))
		s := e.settings
		s.ProcessedAction, s.ProcessedTarget = ProcessedLabel, "$Rebound"
		rec := newMemRecorder()
		if _, err := e.sync(t, context.Background(), rec, s); err != nil {
			t.Fatal(err)
		}
		labelled := 0
		for _, f := range mailboxtest.Flags(t, admin, "INBOX") {
			if strings.EqualFold(f, "$Rebound") { // keywords are case-insensitive (RFC 9051 §2.3.2)
				labelled++
			}
		}
		if labelled != 5 {
			t.Fatalf("%d messages labelled, want 5: %v", labelled, mailboxtest.Flags(t, admin, "INBOX"))
		}
		mailboxtest.Append(t, admin, "INBOX", mailboxtest.Mix(10, time.Now()))
		s.ProcessedAction, s.ProcessedTarget = ProcessedMove, "Processed"
		st, err := e.sync(t, context.Background(), rec, s)
		if err != nil || st.Folders[0].Processed != 5 {
			t.Fatalf("move sync: %+v, %v", st, err)
		}
		if n := len(mailboxtest.Flags(t, admin, "Processed")); n != 5 {
			t.Fatalf("Processed holds %d messages, want 5", n)
		}
		if n := len(mailboxtest.Flags(t, admin, "INBOX")); n != 15 {
			t.Fatalf("INBOX holds %d messages, want 15", n)
		}
	})

	t.Run("cancel closes the connection", func(t *testing.T) {
		e := newEnv(t)
		mailboxtest.Append(t, e.admin(t), "INBOX", mailboxtest.Mix(50, time.Now()))
		ctx, cancel := context.WithCancel(context.Background())
		conn, err := Dial(ctx, e.settings, e.creds, e.policy)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		cancel()
		done := make(chan error, 1)
		go func() {
			_, err := conn.Sync(ctx, newMemRecorder(), nil)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Sync after cancel = %v, want context.Canceled", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Sync did not stop after cancel")
		}
	})
}
