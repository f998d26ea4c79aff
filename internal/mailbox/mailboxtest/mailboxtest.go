// Package mailboxtest holds test helpers shared by the mailbox and tasks
// tests: the private Dovecot server of scripts/dovecot.sh, generated bounce
// and ordinary messages, and APPEND over IMAP. It is imported by tests only.
package mailboxtest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

var (
	dovecotOnce sync.Once
	dovecotAddr string
	dovecotPass string
	dovecotErr  error
)

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	return filepath.Dir(strings.TrimSpace(string(out))), nil
}

func startDovecot() (addr, password string, err error) {
	if a, p := os.Getenv("REBOUND_DOVECOT_ADDR"), os.Getenv("REBOUND_DOVECOT_PASSWORD"); a != "" && p != "" {
		return a, p, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", "", err
	}
	script := filepath.Join(root, "scripts", "dovecot.sh")
	up := exec.Command(script, "up")
	// A daemon that inherited the output pipe would keep CombinedOutput
	// waiting forever; stop waiting for the pipe shortly after the script
	// itself exits.
	up.WaitDelay = 5 * time.Second
	if out, err := up.CombinedOutput(); err != nil && !errors.Is(err, exec.ErrWaitDelay) {
		return "", "", fmt.Errorf("%s up: %v\n%s", script, err, out)
	}
	out, err := exec.Command(script, "env").Output()
	if err != nil {
		return "", "", err
	}
	for _, line := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		if !ok {
			continue
		}
		v = strings.Trim(v, "'")
		switch k {
		case "REBOUND_DOVECOT_ADDR":
			addr = v
		case "REBOUND_DOVECOT_PASSWORD":
			password = v
		}
	}
	if addr == "" || password == "" {
		return "", "", fmt.Errorf("%s env printed no address", script)
	}
	return addr, password, nil
}

// DovecotUser is a fresh, empty mailbox on the private Dovecot.
type DovecotUser struct {
	Addr     string // 127.0.0.1:port, plain IMAP
	User     string
	Password string
}

// Dovecot starts the private Dovecot once per test process through
// scripts/dovecot.sh (which installs dovecot-imapd as root when missing),
// unless REBOUND_DOVECOT_ADDR and REBOUND_DOVECOT_PASSWORD name a running
// one, and returns a new user with an empty mailbox. When Dovecot cannot be
// started the test skips, saying why, except with CI set, where it fails:
// CI never passes without the Dovecot tests. -short skips them.
func Dovecot(t testing.TB) DovecotUser {
	t.Helper()
	if testing.Short() {
		t.Skip("Dovecot tests skipped with -short")
	}
	dovecotOnce.Do(func() { dovecotAddr, dovecotPass, dovecotErr = startDovecot() })
	if dovecotErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Dovecot is required in CI: %v", dovecotErr)
		}
		t.Skipf("Dovecot not available (run scripts/dovecot.sh up): %v", dovecotErr)
	}
	var b [6]byte
	rand.Read(b[:])
	return DovecotUser{Addr: dovecotAddr, User: "t" + hex.EncodeToString(b[:]), Password: dovecotPass}
}

// Client logs in to u's mailbox; the client is closed with the test.
func (u DovecotUser) Client(t testing.TB) *imapclient.Client {
	t.Helper()
	c, err := imapclient.DialInsecure(u.Addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Login(u.User, u.Password).Wait(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Bounce writes an RFC 3464 DSN for recipient lead<n>@example.org, with the
// original's headers (X-Rebound-Campaign: c1) returned.
func Bounce(n int, date time.Time) []byte {
	b := &bytes.Buffer{}
	fmt.Fprintf(b, "Return-Path: <>\r\nFrom: Mail Delivery System <MAILER-DAEMON@mx%d.example.net>\r\n", n%7)
	fmt.Fprintf(b, "To: sender@example.com\r\nSubject: Undelivered Mail Returned to Sender\r\n")
	fmt.Fprintf(b, "Date: %s\r\nMessage-ID: <bounce-%d@mx.example.net>\r\nMIME-Version: 1.0\r\n", date.Format(time.RFC1123Z), n)
	fmt.Fprintf(b, "Content-Type: multipart/report; report-type=delivery-status; boundary=\"B%d\"\r\n\r\n", n)
	fmt.Fprintf(b, "--B%d\r\nContent-Type: text/plain\r\n\r\nI'm sorry to have to inform you that your message could not be delivered.\r\n\r\n<lead%d@example.org>: host mx.example.org said: 550 5.1.1 User unknown\r\n\r\n", n, n)
	fmt.Fprintf(b, "--B%d\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.net\r\n\r\nFinal-Recipient: rfc822; lead%d@example.org\r\nAction: failed\r\nStatus: 5.1.1\r\nDiagnostic-Code: smtp; 550 5.1.1 <lead%d@example.org>: User unknown\r\n\r\n", n, n, n)
	fmt.Fprintf(b, "--B%d\r\nContent-Type: text/rfc822-headers\r\n\r\nFrom: sender@example.com\r\nTo: lead%d@example.org\r\nSubject: Spring offer\r\nMessage-ID: <campaign-%d@example.com>\r\nX-Rebound-Campaign: c1\r\n\r\n--B%d--\r\n", n, n, n, n)
	return b.Bytes()
}

// Ordinary writes an ordinary message that header triage must not flag.
func Ordinary(n int, date time.Time) []byte {
	b := &bytes.Buffer{}
	fmt.Fprintf(b, "Return-Path: <colleague%d@example.com>\r\nFrom: Colleague %d <colleague%d@example.com>\r\n", n, n, n)
	fmt.Fprintf(b, "To: sender@example.com\r\nSubject: Re: meeting notes %d\r\nDate: %s\r\n", n, date.Format(time.RFC1123Z))
	fmt.Fprintf(b, "Message-ID: <ordinary-%d@example.com>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n", n)
	b.WriteString(strings.Repeat("Thanks, see you on Thursday. Here are the notes from today.\r\n", 1+n%20))
	return b.Bytes()
}

// Message is a message to APPEND.
type Message struct {
	Raw    []byte
	Bounce bool
	Date   time.Time // INTERNALDATE
}

// Mix returns total messages, every other one a generated bounce (the
// first is), dated in the last total seconds before now.
func Mix(total int, now time.Time) []Message {
	msgs := make([]Message, 0, total)
	for i := range total {
		d := now.Add(-time.Duration(total-i) * time.Second)
		if i%2 == 0 {
			msgs = append(msgs, Message{Raw: Bounce(i, d), Bounce: true, Date: d})
		} else {
			msgs = append(msgs, Message{Raw: Ordinary(i, d), Date: d})
		}
	}
	return msgs
}

// Append APPENDs msgs to folder, pipelining up to 64 commands.
func Append(t testing.TB, c *imapclient.Client, folder string, msgs []Message) {
	t.Helper()
	const window = 64
	pending := make([]*imapclient.AppendCommand, 0, window)
	wait := func() {
		for _, cmd := range pending {
			if _, err := cmd.Wait(); err != nil {
				t.Fatalf("append: %v", err)
			}
		}
		pending = pending[:0]
	}
	for i, m := range msgs {
		cmd := c.Append(folder, int64(len(m.Raw)), &imap.AppendOptions{Time: m.Date})
		if _, err := cmd.Write(m.Raw); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		if err := cmd.Close(); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		pending = append(pending, cmd)
		if len(pending) == window {
			wait()
		}
	}
	wait()
}

// Flags returns the flags of every message of folder by UID, read after
// EXAMINE so that reading them changes nothing.
func Flags(t testing.TB, c *imapclient.Client, folder string) map[uint32]string {
	t.Helper()
	if _, err := c.Select(folder, &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
		t.Fatal(err)
	}
	msgs, err := c.Fetch(imap.SeqSet{{Start: 1, Stop: 0}}, &imap.FetchOptions{UID: true, Flags: true}).Collect()
	if err != nil {
		t.Fatal(err)
	}
	out := map[uint32]string{}
	for _, m := range msgs {
		fl := make([]string, 0, len(m.Flags))
		for _, f := range m.Flags {
			fl = append(fl, string(f))
		}
		slices.Sort(fl) // some servers return flags in no fixed order
		out[uint32(m.UID)] = strings.Join(fl, " ")
	}
	if err := c.Unselect().Wait(); err != nil {
		t.Fatal(err)
	}
	return out
}

// DropProxy forwards TCP connections to a target and cuts each one after
// a given number of bytes from the server, to break a session in the
// middle of a command.
type DropProxy struct {
	ln     net.Listener
	target string
	limit  int64
}

// StartDropProxy listens on 127.0.0.1 and forwards to target, cutting each
// connection (both directions) once limit bytes have come from the server.
// It stops with the test.
func StartDropProxy(t testing.TB, target string, limit int64) *DropProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &DropProxy{ln: ln, target: target, limit: limit}
	go p.serve()
	t.Cleanup(func() { ln.Close() })
	return p
}

// Addr is the proxy's host:port.
func (p *DropProxy) Addr() string { return p.ln.Addr().String() }

func (p *DropProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			s, err := net.Dial("tcp", p.target)
			if err != nil {
				return
			}
			defer s.Close()
			go func() { io.Copy(s, c); s.Close() }()
			io.CopyN(c, s, p.limit)
		}()
	}
}
