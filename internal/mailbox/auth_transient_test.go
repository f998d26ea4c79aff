package mailbox

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
)

// refusingSession answers LOGIN with a fixed error.
type refusingSession struct {
	imapserver.Session
	err *imap.Error
}

func (s *refusingSession) Login(string, string) error { return s.err }

// TestDialTransientLoginRefusal checks that a LOGIN refused for a reason
// that says nothing about the credentials (RFC 5530 LIMIT, INUSE,
// SERVERBUG, UNAVAILABLE) is a retryable error, not ErrAuth: ErrAuth stops
// the mailbox until the customer re-enters credentials that were right.
func TestDialTransientLoginRefusal(t *testing.T) {
	cert, pool := testCert(t)
	for _, tc := range []struct {
		code     imap.ResponseCode
		wantAuth bool
	}{
		{imap.ResponseCodeLimit, false},
		{imap.ResponseCodeInUse, false},
		{imap.ResponseCodeServerBug, false},
		{imap.ResponseCodeUnavailable, false},
		{imap.ResponseCodeAuthenticationFailed, true},
		{"", true},
	} {
		t.Run(string(tc.code), func(t *testing.T) {
			refusal := &imap.Error{Type: imap.StatusResponseTypeNo, Code: tc.code, Text: "refused"}
			mem := imapmemserver.New()
			srv := imapserver.New(&imapserver.Options{
				NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
					return &refusingSession{Session: mem.NewSession(), err: refusal}, nil, nil
				},
				Caps:         imap.CapSet{imap.CapIMAP4rev1: {}},
				InsecureAuth: true,
				Logger:       discardLogger{},
			})
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}})
			go srv.Serve(ln)
			t.Cleanup(func() { srv.Close() })
			host, port := hostPort(t, ln.Addr().String())
			policy := &Policy{AllowPrivateHosts: true, TLSConfig: &tls.Config{RootCAs: pool}, IOTimeout: 10 * time.Second}
			_, err = Dial(context.Background(), Settings{Host: host, Port: port, Username: testUser},
				Credentials{Password: testPassword}, policy)
			if err == nil {
				t.Fatal("Dial succeeded against a server refusing LOGIN")
			}
			if got := errors.Is(err, ErrAuth); got != tc.wantAuth {
				t.Fatalf("Dial error %v: ErrAuth %v, want %v", err, got, tc.wantAuth)
			}
		})
	}
}
