package mailbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

func TestTriageHeader(t *testing.T) {
	cases := []struct {
		name   string
		header string
		want   bool
	}{
		{"dsn content type", "From: a@b.example\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=x\r\n", true},
		{"arf", "Content-Type: multipart/report; report-type=feedback-report;\r\n boundary=\"b\"\r\n", true},
		{"exim failed recipients", "From: x@y.example\r\nX-Failed-Recipients: u@z.example\r\n", true},
		{"exchange ndr", "X-MS-Exchange-Message-Is-Ndr: \r\n", true},
		{"null return path", "Return-Path: <>\r\nSubject: hello\r\n", true},
		{"auto submitted", "Auto-Submitted: auto-replied\r\n", true},
		{"auto submitted no", "Auto-Submitted: no\r\nFrom: alice@example.com\r\nSubject: lunch\r\n", false},
		{"mailer daemon", "From: MAILER-DAEMON@mx.example.org (Mail Delivery System)\r\n", true},
		{"bare mailer daemon", "From: MAILER-DAEMON\r\n", true},
		{"postmaster", "From: <postmaster@outlook.com>\r\n", true},
		{"display name", "From: \"Mail Delivery Subsystem\" <noreply@google.com>\r\n", true},
		{"subject english", "From: x@y.example\r\nSubject: Undeliverable: Spring sale\r\n", true},
		{"subject german encoded", "From: x@y.example\r\nSubject: =?utf-8?q?Unzustellbar=3A_Hallo?=\r\n", true},
		{"subject japanese iso-2022-jp", "From: x@y.example\r\nSubject: =?ISO-2022-JP?B?GyRCR1s/LklURz0bKEI=?=\r\n", true},
		{"subject chinese", "From: x@y.example\r\nSubject: =?UTF-8?B?57O757uf6YCA5L+h?=\r\n", true},
		{"subject russian", "Subject: =?UTF-8?B?0J3QtdC00L7RgdGC0LDQstC70LXQvdC90L7QtSDRgdC+0L7QsdGJ0LXQvdC40LU=?=\r\n", true},
		{"ordinary", "From: Alice <alice@example.com>\r\nSubject: Meeting tomorrow\r\nContent-Type: text/plain; charset=utf-8\r\n", false},
		{"ordinary multipart", "From: shop@example.com\r\nSubject: Your receipt\r\nContent-Type: multipart/alternative; boundary=b\r\n", false},
		{"empty", "", false},
		{"broken header", "this is : not\r\n a header\x00\r\n", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := TriageHeader([]byte(c.header))
			if got.Likely != c.want {
				t.Fatalf("TriageHeader = %+v, want likely=%v", got, c.want)
			}
		})
	}
}

// corpusRoot is ../shared/corpus relative to the module root.
var corpusRoot = filepath.Join("..", "..", "..", "shared", "corpus")

// corpusDir returns the corpus directory, skipping the test without it.
func corpusDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(corpusRoot)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "expected.jsonl")); err != nil {
		t.Skipf("corpus not found at %s: %v", dir, err)
	}
	return dir
}

// corpusReasons reads dir's expected.jsonl: the expected reason of each
// message file (not-a-bounce for mail that is no bounce).
func corpusReasons(t testing.TB, dir string) map[string]string {
	t.Helper()
	f, err := os.ReadFile(filepath.Join(dir, "expected.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(f)), "\n") {
		var row struct{ File, Reason string }
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		reasons[row.File] = row.Reason
	}
	return reasons
}

// headerOf returns the header block of a message file, with the fields the
// sync fetches, as BODY.PEEK[HEADER.FIELDS (...)] would return it.
func headerOf(t testing.TB, raw []byte) []byte {
	t.Helper()
	raw = bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n"))
	tr := textproto.NewReader(bufio.NewReader(bytes.NewReader(raw)))
	mh, err := tr.ReadMIMEHeader()
	if err != nil && len(mh) == 0 {
		return raw
	}
	var b bytes.Buffer
	for _, f := range triageFields {
		for _, v := range mh.Values(f) {
			b.WriteString(f + ": " + v + "\r\n")
		}
	}
	b.WriteString("\r\n")
	return b.Bytes()
}

// TestTriageCorpus checks that header triage flags every bounce of the
// corpus: a miss here is a bounce the sync would never fetch.
func TestTriageCorpus(t *testing.T) {
	dir := corpusDir(t)
	reasons := corpusReasons(t, dir)
	missed := 0
	for file, reason := range reasons {
		if reason == "not-a-bounce" {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, "emails", file))
		if err != nil {
			t.Fatal(err)
		}
		if !TriageHeader(headerOf(t, raw)).Likely {
			missed++
			t.Errorf("%s (%s): not flagged as a likely bounce", file, reason)
		}
	}
	t.Logf("%d corpus messages, %d missed", len(reasons), missed)
}

// TestTriageFetched checks the triage of FETCH responses whose header
// section does not match the request: a bounce must not be turned down
// because the server echoed the field list differently or sent no header.
func TestTriageFetched(t *testing.T) {
	bounceHeader := []byte("Return-Path: <>\r\nSubject: Your message\r\n\r\n")
	echoed := &imap.FetchItemBodySection{Specifier: imap.PartSpecifierHeader, HeaderFields: []string{"Return-Path", "Subject"}}
	for _, tc := range []struct {
		name string
		buf  imapclient.FetchMessageBuffer
		want bool
	}{
		{"as asked, ordinary", imapclient.FetchMessageBuffer{UID: 1, BodySection: []imapclient.FetchBodySectionBuffer{
			{Section: headerSection, Bytes: []byte("From: a@example.com\r\nSubject: lunch\r\n\r\n")}}}, false},
		{"as asked, bounce", imapclient.FetchMessageBuffer{UID: 1, BodySection: []imapclient.FetchBodySectionBuffer{
			{Section: headerSection, Bytes: bounceHeader}}}, true},
		{"field list echoed differently", imapclient.FetchMessageBuffer{UID: 2, BodySection: []imapclient.FetchBodySectionBuffer{
			{Section: echoed, Bytes: bounceHeader}}}, true},
		{"field list echoed differently, ordinary", imapclient.FetchMessageBuffer{UID: 2, BodySection: []imapclient.FetchBodySectionBuffer{
			{Section: echoed, Bytes: []byte("From: a@example.com\r\n\r\n")}}}, false},
		{"no header section", imapclient.FetchMessageBuffer{UID: 3}, true},
	} {
		if got := triageFetched(&tc.buf); got.Likely != tc.want {
			t.Errorf("%s: likely %v (%s), want %v", tc.name, got.Likely, got.Reason, tc.want)
		}
	}
}

// TestBodyOf checks that a whole-message section answered with or without
// the partial origin asked for is still found.
func TestBodyOf(t *testing.T) {
	raw := []byte("Return-Path: <>\r\n\r\nbody\r\n")
	whole := &imap.FetchItemBodySection{Peek: true}
	partial := &imap.FetchItemBodySection{Peek: true, Partial: &imap.SectionPartial{Offset: 0, Size: 600}}
	answeredWhole := imapclient.FetchMessageBuffer{UID: 1, BodySection: []imapclient.FetchBodySectionBuffer{{Section: &imap.FetchItemBodySection{}, Bytes: raw}}}
	answeredPartial := imapclient.FetchMessageBuffer{UID: 1, BodySection: []imapclient.FetchBodySectionBuffer{{Section: &imap.FetchItemBodySection{Partial: &imap.SectionPartial{Offset: 0}}, Bytes: raw}}}
	header := imapclient.FetchMessageBuffer{UID: 1, BodySection: []imapclient.FetchBodySectionBuffer{{Section: &imap.FetchItemBodySection{Specifier: imap.PartSpecifierHeader}, Bytes: raw}}}
	for _, tc := range []struct {
		name string
		buf  imapclient.FetchMessageBuffer
		sec  *imap.FetchItemBodySection
		want bool
	}{
		{"whole as asked", answeredWhole, whole, true},
		{"partial as asked", answeredPartial, partial, true},
		{"partial asked, whole answered", answeredWhole, partial, true},
		{"whole asked, partial answered", answeredPartial, whole, true},
		{"header only", header, whole, false},
		{"nothing", imapclient.FetchMessageBuffer{UID: 1}, whole, false},
	} {
		if got := bodyOf(&tc.buf, tc.sec) != nil; got != tc.want {
			t.Errorf("%s: found %v, want %v", tc.name, got, tc.want)
		}
	}
}
