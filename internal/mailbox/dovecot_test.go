package mailbox

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/mailbox/mailboxtest"
)

// The Dovecot tests run against Debian's dovecot-imapd, started by
// scripts/dovecot.sh (which installs it as root when missing) unless
// REBOUND_DOVECOT_ADDR and REBOUND_DOVECOT_PASSWORD point at a running one
// (any user name logs in with that password and gets an empty mailbox).
// Outside CI they skip, saying why, when Dovecot cannot be started; with
// CI set they fail instead, so CI never passes without them.

// dovecotEnv gives each test a fresh, empty Dovecot mailbox (see
// mailboxtest.Dovecot: skips outside CI when Dovecot cannot start, fails in CI).
func dovecotEnv(t testing.TB) *syncEnv {
	t.Helper()
	u := mailboxtest.Dovecot(t)
	host, port := hostPort(t, u.Addr)
	return &syncEnv{
		settings: Settings{Host: host, Port: port, Username: u.User, TLS: TLSNone},
		creds:    Credentials{Password: u.Password},
		policy:   &Policy{AllowPrivateHosts: true, IOTimeout: 30 * time.Second},
		admin:    u.Client,
	}
}

func TestSyncDovecot(t *testing.T) { runSyncSuite(t, dovecotEnv) }

// corpusBounces returns the corpus messages that are bounces (all but
// not-a-bounce), in CRLF form, or nil when the corpus is absent.
func corpusBounces(t testing.TB) [][]byte {
	dir, err := filepath.Abs(corpusRoot)
	if err != nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, "expected.jsonl")); err != nil {
		return nil
	}
	var out [][]byte
	for file, reason := range corpusReasons(t, dir) {
		if reason == "not-a-bounce" {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, "emails", file))
		if err != nil {
			t.Fatal(err)
		}
		raw = bytes.ReplaceAll(bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n"))
		out = append(out, raw)
	}
	return out
}

// e2eMessages returns total messages: the corpus bounces when present (else
// generated ones) for a bit under half, the rest ordinary mail.
func e2eMessages(t testing.TB, total int) (msgs []mailboxtest.Message, bounces int) {
	now := time.Now()
	corpus := corpusBounces(t)
	for i := range total {
		d := now.Add(-time.Duration(total-i) * time.Minute)
		switch {
		case i%2 == 0 && i/2 < len(corpus):
			msgs = append(msgs, mailboxtest.Message{Raw: corpus[i/2], Bounce: true, Date: d})
			bounces++
		case i%2 == 0:
			msgs = append(msgs, mailboxtest.Message{Raw: mailboxtest.Bounce(i, d), Bounce: true, Date: d})
			bounces++
		default:
			msgs = append(msgs, mailboxtest.Message{Raw: mailboxtest.Ordinary(i, d), Date: d})
		}
	}
	return msgs, bounces
}
