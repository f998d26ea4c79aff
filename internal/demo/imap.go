package demo

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
)

// mailFile is one message of the demo mailbox.
type mailFile struct {
	Name string // file name, or "ordinary-N" for the generated mail
	Raw  []byte
}

// readMailDir reads every *.eml file of dir, sorted by name. With limit > 0
// and more files than that, it keeps limit files spread evenly over the
// sorted list, so every kind of file name (MTA) stays represented.
func readMailDir(dir string, limit int) ([]mailFile, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.eml"))
	if err != nil {
		return nil, fmt.Errorf("demo: list %s: %w", dir, err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("demo: no *.eml file in %s", dir)
	}
	sort.Strings(names)
	if limit > 0 && len(names) > limit {
		picked := make([]string, 0, limit)
		for i := range limit {
			picked = append(picked, names[i*len(names)/limit])
		}
		names = picked
	}
	out := make([]mailFile, 0, len(names))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("demo: read %s: %w", n, err)
		}
		out = append(out, mailFile{Name: filepath.Base(n), Raw: b})
	}
	return out, nil
}

// ordinaryMail returns n everyday messages (replies, a newsletter, an
// invoice) that are not bounces, so the demo mailbox looks like a real
// sender's inbox and the sync has mail to pass over.
func ordinaryMail(n int, now time.Time) []mailFile {
	type tmpl struct{ from, subject, body string }
	ts := []tmpl{
		{"Dana Whitfield <dana@customer.example>", "Re: Your proposal", "Thanks, this looks good. Can we talk on Thursday?\n"},
		{"Acme Billing <billing@acme.example>", "Invoice 2026-1142", "Your invoice for November is attached as a link in your account.\n"},
		{"The Weekly Digest <news@digest.example>", "This week: five tips for cleaner lists", "Tip 1: remove addresses that bounce hard.\n"},
		{"Sam Ortega <sam@partner.example>", "Meeting notes", "Notes from today's call are below.\n\n- next steps\n- owners\n"},
		{"Calendar <calendar@workspace.example>", "Invitation: Campaign review", "You have been invited to Campaign review, Friday 10:00.\n"},
		{"Lee Park <lee@prospect.example>", "Re: Quick question", "Sure, send me the details and I will take a look.\n"},
	}
	out := make([]mailFile, 0, n)
	for i := range n {
		t := ts[i%len(ts)]
		date := now.Add(-time.Duration(n-i) * time.Hour).UTC().Format(time.RFC1123Z)
		raw := fmt.Sprintf("From: %s\r\nTo: Demo Sender <sender@rebound-demo.example>\r\nSubject: %s\r\n"+
			"Date: %s\r\nMessage-ID: <ordinary-%d@rebound-demo.example>\r\nMIME-Version: 1.0\r\n"+
			"Content-Type: text/plain; charset=utf-8\r\n\r\n%s",
			t.from, t.subject, date, i+1, strings.ReplaceAll(t.body, "\n", "\r\n"))
		out = append(out, mailFile{Name: fmt.Sprintf("ordinary-%d", i+1), Raw: []byte(raw)})
	}
	return out
}

// crlf turns bare LF line ends into CRLF, as an IMAP server stores mail.
func crlf(b []byte) []byte {
	if !bytes.Contains(b, []byte("\n")) {
		return b
	}
	var out bytes.Buffer
	out.Grow(len(b) + len(b)/40)
	for i, c := range b {
		if c == '\n' && (i == 0 || b[i-1] != '\r') {
			out.WriteByte('\r')
		}
		out.WriteByte(c)
	}
	return out.Bytes()
}

// literal is an imap.LiteralReader over bytes.
type literal struct {
	*bytes.Reader
	size int64
}

func (l literal) Size() int64 { return l.size }

// imapServer is the demo's in-process IMAP server (go-imap v2's imapserver
// over its in-memory backend): one user, one INBOX, plain IMAP on a
// loopback port.
type imapServer struct {
	Addr     string // 127.0.0.1:PORT
	Host     string
	Port     int
	User     string
	Password string
	Messages int
	srv      *imapserver.Server
}

// startIMAP serves msgs in INBOX of user/password on a free loopback port,
// received between now-len(msgs) minutes and now (inside any look-back
// window). Authentication without TLS is allowed: the demo listens on
// loopback only. Server errors are logged to logw.
func startIMAP(msgs []mailFile, user, password string, now time.Time, logw io.Writer) (*imapServer, error) {
	mem := imapmemserver.New()
	u := imapmemserver.NewUser(user, password)
	if err := u.Create("INBOX", nil); err != nil {
		return nil, fmt.Errorf("demo: imap: create INBOX: %w", err)
	}
	for i, m := range msgs {
		raw := crlf(m.Raw)
		at := now.Add(-time.Duration(len(msgs)-i) * time.Minute)
		if _, err := u.Append("INBOX", literal{bytes.NewReader(raw), int64(len(raw))}, &imap.AppendOptions{Time: at}); err != nil {
			return nil, fmt.Errorf("demo: imap: append %s: %w", m.Name, err)
		}
	}
	mem.AddUser(u)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("demo: imap: listen: %w", err)
	}
	srv := imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return mem.NewSession(), nil, nil
		},
		Caps:         imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapMove: {}, imap.CapUIDPlus: {}},
		InsecureAuth: true, // loopback only, see above
		Logger:       log.New(logw, "imap: ", log.LstdFlags),
	})
	go func() { _ = srv.Serve(ln) }()
	addr := ln.Addr().(*net.TCPAddr)
	return &imapServer{Addr: addr.String(), Host: addr.IP.String(), Port: addr.Port, User: user,
		Password: password, Messages: len(msgs), srv: srv}, nil
}

// Close stops the server and closes its connections.
func (s *imapServer) Close() error { return s.srv.Close() }
