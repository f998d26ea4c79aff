package mailbox

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
	"github.com/emersion/go-sasl"
)

const (
	testUser     = "rebound@example.test"
	testPassword = "correct horse"
	testToken    = "access-token-ok" // what the fake OAuth2 endpoint hands out
)

// testCert makes a self-signed certificate for localhost / 127.0.0.1 and a
// pool that trusts it.
func testCert(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "localhost"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// saslSession adds XOAUTH2 and OAUTHBEARER (accepting testToken) to an
// imapmemserver session, and forwards MOVE.
type saslSession struct {
	imapserver.Session
}

func (s *saslSession) AuthenticateMechanisms() []string {
	return []string{"PLAIN", "XOAUTH2", "OAUTHBEARER"}
}

func (s *saslSession) Authenticate(mech string) (sasl.Server, error) {
	switch mech {
	case "PLAIN":
		return sasl.NewPlainServer(func(_, user, pass string) error { return s.Login(user, pass) }), nil
	case "OAUTHBEARER":
		return sasl.NewOAuthBearerServer(func(o sasl.OAuthBearerOptions) *sasl.OAuthBearerError {
			if o.Username != testUser || o.Token != testToken {
				return &sasl.OAuthBearerError{Status: "invalid_token", Schemes: "bearer"}
			}
			if err := s.Login(testUser, testPassword); err != nil {
				return &sasl.OAuthBearerError{Status: "invalid_token"}
			}
			return nil
		}), nil
	case "XOAUTH2":
		return &xoauth2Server{sess: s}, nil
	}
	return nil, &imap.Error{Type: imap.StatusResponseTypeNo, Text: "unsupported mechanism"}
}

func (s *saslSession) Move(w *imapserver.MoveWriter, numSet imap.NumSet, dest string) error {
	return s.Session.(imapserver.SessionMove).Move(w, numSet, dest)
}

type xoauth2Server struct {
	sess   *saslSession
	failed bool
}

func (x *xoauth2Server) Next(resp []byte) ([]byte, bool, error) {
	if x.failed {
		return nil, true, imapserver.ErrAuthFailed
	}
	if resp == nil {
		return []byte{}, false, nil
	}
	want := "user=" + testUser + "\x01auth=Bearer " + testToken + "\x01\x01"
	if string(resp) != want {
		x.failed = true
		return []byte(`{"status":"401","schemes":"Bearer","scope":"https://mail.google.com/"}`), false, nil
	}
	if err := x.sess.Login(testUser, testPassword); err != nil {
		return nil, true, err
	}
	return nil, true, nil
}

type memServer struct {
	addr string
	pool *x509.CertPool
	user *imapmemserver.User
}

// startMemServer serves an in-process IMAP server on 127.0.0.1; implicit
// TLS when implicitTLS, else plain with STARTTLS offered.
func startMemServer(t testing.TB, implicitTLS bool) *memServer {
	t.Helper()
	cert, pool := testCert(t)
	mem := imapmemserver.New()
	user := imapmemserver.NewUser(testUser, testPassword)
	if err := user.Create("INBOX", nil); err != nil {
		t.Fatal(err)
	}
	mem.AddUser(user)
	tlsCfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	opts := &imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return &saslSession{Session: mem.NewSession()}, nil, nil
		},
		Caps:         imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapMove: {}, imap.CapUIDPlus: {}},
		InsecureAuth: true,
		Logger:       discardLogger{},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if implicitTLS {
		ln = tls.NewListener(ln, tlsCfg)
	} else {
		opts.TLSConfig = tlsCfg
	}
	srv := imapserver.New(opts)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return &memServer{addr: ln.Addr().String(), pool: pool, user: user}
}

type discardLogger struct{}

func (discardLogger) Printf(string, ...any) {}

func hostPort(t testing.TB, addr string) (string, int) {
	t.Helper()
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return ap.Addr().String(), int(ap.Port())
}

// memRecorder records into memory like tracking does: a message counts as
// a bounce when isBounce says so; a message recorded twice under the same
// (folder, UIDVALIDITY, UID) is counted in dup.
type memRecorder struct {
	mu          sync.Mutex
	isBounce    func([]byte) bool
	messages    map[string]Message
	bounces     map[string]bool
	dup         int
	checkpoints map[string]Checkpoint
	failAfter   int // fail the Nth call (1-based); 0 never
	calls       int
}

func newMemRecorder() *memRecorder {
	return &memRecorder{
		isBounce:    func(raw []byte) bool { return bytes.Contains(raw, []byte("message/delivery-status")) },
		messages:    map[string]Message{},
		bounces:     map[string]bool{},
		checkpoints: map[string]Checkpoint{},
	}
}

func (r *memRecorder) RecordBatch(ctx context.Context, msgs []Message, cp Checkpoint) (BatchResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if r.failAfter > 0 && r.calls == r.failAfter {
		return BatchResult{}, fmt.Errorf("recorder: injected failure")
	}
	var res BatchResult
	for _, m := range msgs {
		key := fmt.Sprintf("%s/%d/%d", m.Folder, m.UIDValidity, m.UID)
		if _, ok := r.messages[key]; ok {
			r.dup++
		}
		r.messages[key] = m
		if r.isBounce(m.Raw) {
			r.bounces[key] = true
			res.BounceUIDs = append(res.BounceUIDs, m.UID)
		}
	}
	r.checkpoints[cp.Folder] = cp
	return res, nil
}

func (r *memRecorder) snapshot() map[string]Checkpoint {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]Checkpoint{}
	for k, v := range r.checkpoints {
		out[k] = v
	}
	return out
}
