package mailbox

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2/imapclient"
)

// The Dovecot tests run against Debian's dovecot-imapd, started by
// scripts/dovecot.sh (which installs it as root when missing) unless
// REBOUND_DOVECOT_ADDR and REBOUND_DOVECOT_PASSWORD point at a running one
// (any user name logs in with that password and gets an empty mailbox).
// Outside CI they skip, saying why, when Dovecot cannot be started; with
// CI set they fail instead, so CI never passes without them.

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

func startDovecot() (addr, passwd string, err error) {
	if a, p := os.Getenv("REBOUND_DOVECOT_ADDR"), os.Getenv("REBOUND_DOVECOT_PASSWORD"); a != "" && p != "" {
		return a, p, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", "", err
	}
	script := filepath.Join(root, "scripts", "dovecot.sh")
	if out, err := exec.Command(script, "up").CombinedOutput(); err != nil {
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
			passwd = v
		}
	}
	if addr == "" || passwd == "" {
		return "", "", fmt.Errorf("%s env printed no address", script)
	}
	return addr, passwd, nil
}

// dovecotEnv starts (once) the private Dovecot and adds a fresh user, so
// each test has an empty mailbox of its own.
func dovecotEnv(t testing.TB) *syncEnv {
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
	user := "t" + hex.EncodeToString(b[:]) // a fresh, empty mailbox
	pass := dovecotPass
	host, port := hostPort(t, dovecotAddr)
	return &syncEnv{
		settings: Settings{Host: host, Port: port, Username: user, TLS: TLSNone},
		creds:    Credentials{Password: pass},
		policy:   &Policy{AllowPrivateHosts: true, IOTimeout: 30 * time.Second},
		admin: func(t testing.TB) *imapclient.Client {
			c, err := imapclient.DialInsecure(dovecotAddr, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Login(user, pass).Wait(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			return c
		},
	}
}

func TestSyncDovecot(t *testing.T) { runSyncSuite(t, dovecotEnv) }

// corpusBounces returns the corpus messages that are bounces (all but
// not-a-bounce), in CRLF form, or nil when the corpus is absent.
func corpusBounces(t testing.TB) [][]byte {
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "corpus"))
	if err != nil {
		return nil
	}
	f, err := os.ReadFile(filepath.Join(dir, "expected.jsonl"))
	if err != nil {
		return nil
	}
	notBounce := map[string]bool{}
	files := map[string]bool{}
	for _, line := range strings.Split(string(f), "\n") {
		var file, reason string
		for _, kv := range strings.Split(strings.Trim(line, "{}"), ", \"") {
			k, v, _ := strings.Cut(kv, ":")
			k = strings.Trim(k, "\" ")
			v = strings.Trim(v, "\" ")
			switch k {
			case "file":
				file = v
			case "reason":
				reason = v
			}
		}
		if file == "" {
			continue
		}
		files[file] = true
		if reason == "not-a-bounce" {
			notBounce[file] = true
		}
	}
	var out [][]byte
	for file := range files {
		if notBounce[file] {
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
func e2eMessages(t testing.TB, total int) (msgs []testMsg, bounces int) {
	now := time.Now()
	corpus := corpusBounces(t)
	for i := range total {
		d := now.Add(-time.Duration(total-i) * time.Minute)
		switch {
		case i%2 == 0 && i/2 < len(corpus):
			msgs = append(msgs, testMsg{raw: corpus[i/2], bounce: true, date: d})
			bounces++
		case i%2 == 0:
			msgs = append(msgs, testMsg{raw: genBounce(i, d), bounce: true, date: d})
			bounces++
		default:
			msgs = append(msgs, testMsg{raw: genOrdinary(i, d), date: d})
		}
	}
	return msgs, bounces
}
