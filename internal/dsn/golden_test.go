package dsn

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json from the decoder's output")

// fixtures returns the .eml files of testdata.
func fixtures(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.eml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in testdata: %v", err)
	}
	return files
}

// TestGolden decodes every testdata/<case>.eml and compares the results
// with <case>.golden.json (go test -run TestGolden -update rewrites them).
func TestGolden(t *testing.T) {
	for _, f := range fixtures(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".eml")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Decode(raw)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			got, err := json.MarshalIndent(res, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := strings.TrimSuffix(f, ".eml") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("results differ from %s:\ngot:\n%s", golden, got)
			}
		})
	}
}

// toCRLF turns LF line endings into CRLF.
func toCRLF(b []byte) []byte {
	return bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n"))
}

// sameForCRLF checks that raw decodes identically with LF and CRLF endings.
func sameForCRLF(t *testing.T, name string, raw []byte) {
	t.Helper()
	a, errA := Decode(raw)
	b, errB := Decode(toCRLF(raw))
	if (errA == nil) != (errB == nil) {
		t.Errorf("%s: LF error %v, CRLF error %v", name, errA, errB)
		return
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("%s: LF and CRLF results differ:\nLF:   %+v\nCRLF: %+v", name, a, b)
	}
}

// TestLineEndings checks LF and CRLF inputs give identical results, over
// the fixtures and, when present, the shared corpus.
func TestLineEndings(t *testing.T) {
	for _, f := range fixtures(t) {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sameForCRLF(t, filepath.Base(f), raw)
	}
	dir := filepath.Join("..", "..", "..", "shared", "corpus", "emails")
	files, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
	if len(files) == 0 {
		t.Logf("corpus %s absent: checked the fixtures only", dir)
		return
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sameForCRLF(t, filepath.Base(f), raw)
	}
}

// TestKinds pins the kind, recipient and original of each fixture, so a
// regenerated golden file cannot silently change what matters most.
func TestKinds(t *testing.T) {
	cases := []struct {
		file      string
		kinds     []Kind
		recipient string
		status    string
		msgID     string
		xheader   string // "Name=value" expected in Original.XHeaders
		command   string
	}{
		{"rfc3464_failed", []Kind{KindBounce}, "alice@gmail.com", "5.1.1", "abc123@sender.test", "X-Rebound-Campaign=cmp-42", "RCPT"},
		{"rfc3464_delayed", []Kind{KindDelayed}, "bob@outlook.com", "4.4.7", "", "", ""},
		{"rfc3464_delivered", []Kind{KindDelivered, KindDelivered}, "carol@icloud.com", "2.0.0", "", "", ""},
		{"rfc6533_global", []Kind{KindBounce}, "θσερ@παράδειγμα.test", "5.2.2", "g1@sender.test", "", ""},
		{"arf_abuse", []Kind{KindComplaint}, "erin@hotmail.com", "", "arf-1@sender.test", "X-Rebound-Campaign=cmp-9", ""},
		{"arf_jmrp", []Kind{KindComplaint}, "nora@hotmail.com", "", "jmrp-1@sender.test", "X-Hmxmroriginalrecipient=<nora@hotmail.com>", ""},
		{"forwarded_report", []Kind{KindBounce}, "oscar@example.co.jp", "5.1.1", "", "", ""},
		{"rfc3464_inline", []Kind{KindDelayed}, "pat@example.net", "4.4.1", "", "", ""},
		{"text_midline", []Kind{KindBounce}, "quinn@example.org", "5.1.1", "mid-1@sender.test", "", "RCPT"},
		{"text_sendmail_blocks", []Kind{KindBounce}, "rita@example.net", "5.5.0", "", "", ""},
		{"arf_textpart", []Kind{KindComplaint}, "uma@isp.example", "", "tp-1@sender.test", "", ""},
		{"text_generic_de", []Kind{KindBounce}, "max@contoso.de", "5.1.1", "", "", ""},
		{"text_generic_fr", []Kind{KindBounce}, "paul@orange.example", "5.2.2", "", "", ""},
		{"text_generic_ru", []Kind{KindBounce}, "ivan@example.ru", "5.1.1", "", "", ""},
		{"text_generic_ja", []Kind{KindBounce}, "taro@example.jp", "5.1.1", "", "", ""},
		{"autoreply_vacation", []Kind{KindAutoReply}, "frank@example.org", "", "offer-17@sender.test", "", ""},
		{"autoreply_subject_de", []Kind{KindAutoReply}, "juergen@example.de", "", "", "", ""},
		{"not_bounce", []Kind{KindNotBounce}, "", "", "", "", ""},
		{"mdn_read_receipt", []Kind{KindNotBounce}, "", "", "", "", ""},
		{"ses_json", []Kind{KindBounce}, "henry@example.com", "5.1.1", "ses-1@sender.test", "X-Rebound-Lead=lead-3", ""},
		{"text_iso2022jp", []Kind{KindBounce}, "ichiro@example.jp", "5.2.2", "", "", ""},
		{"mailer_daemon_autoreplied", []Kind{KindBounce}, "ivan@example.org", "5.1.1", "exim-1@sender.test", "X-Rebound-Campaign=cmp-1", "RCPT"},
		{"quoted_original", []Kind{KindBounce}, "judy@example.com", "5.1.1", "q-1@sender.test", "X-Rebound-Lead=lead-55", ""},
		{"mbox_two", []Kind{KindBounce, KindBounce}, "kim@example.net", "5.1.1", "", "", ""},
		{"transcript_data", []Kind{KindBounce}, "mia@example.org", "5.7.1", "", "", "DATA"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", c.file+".eml"))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Decode(raw)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if len(res) != len(c.kinds) {
				t.Fatalf("got %d results, want %d: %+v", len(res), len(c.kinds), res)
			}
			for i, k := range c.kinds {
				if res[i].Kind != k {
					t.Errorf("result %d kind %q, want %q", i+1, res[i].Kind, k)
				}
			}
			r := res[0]
			if r.Recipient != c.recipient {
				t.Errorf("recipient %q, want %q", r.Recipient, c.recipient)
			}
			if r.Status != c.status {
				t.Errorf("status %q, want %q", r.Status, c.status)
			}
			if r.Original.MessageID != c.msgID {
				t.Errorf("original message-id %q, want %q", r.Original.MessageID, c.msgID)
			}
			if c.xheader != "" {
				k, v, _ := strings.Cut(c.xheader, "=")
				if r.Original.XHeaders[k] != v {
					t.Errorf("original %s = %q, want %q (all: %v)", k, r.Original.XHeaders[k], v, r.Original.XHeaders)
				}
			}
			if r.Command != c.command {
				t.Errorf("command %q, want %q", r.Command, c.command)
			}
		})
	}
}

// TestFailureCodes checks a failure's codes skip success replies of a
// transcript.
func TestFailureCodes(t *testing.T) {
	r := Result{Kind: KindBounce, Diagnostic: "Out: 250 2.1.0 Ok In: RCPT TO:<a@b.test> Out: 550 5.1.1 No such user"}
	fillCodes(&r)
	if r.Status != "5.1.1" || r.ReplyCode != "550" {
		t.Errorf("status %q reply %q, want 5.1.1 550", r.Status, r.ReplyCode)
	}
	d := Result{Kind: KindDelivered, Diagnostic: "250 2.0.0 Ok: queued"}
	fillCodes(&d)
	if d.Status != "2.0.0" || d.ReplyCode != "250" {
		t.Errorf("delivered status %q reply %q", d.Status, d.ReplyCode)
	}
	g := Result{Kind: KindBounce, Diagnostic: "retry timeout exceeded"}
	fillCodes(&g)
	if g.Status != "4.0.0" {
		t.Errorf("give-up after retries: status %q, want 4.0.0", g.Status)
	}
}

// TestProvider checks the receiving side's operator.
func TestProvider(t *testing.T) {
	cases := []struct {
		r    Result
		want Provider
	}{
		{Result{RemoteMTA: "gmail-smtp-in.l.google.com"}, ProviderGoogle},
		{Result{Recipient: "x@googlemail.com"}, ProviderGoogle},
		{Result{RemoteMTA: "example-com.mail.protection.outlook.com"}, ProviderMicrosoft},
		{Result{Recipient: "x@hotmail.co.uk"}, ProviderMicrosoft},
		{Result{Recipient: "x@live.com"}, ProviderMicrosoft},
		{Result{Recipient: "x@msn.com"}, ProviderMicrosoft},
		{Result{RemoteMTA: "mta5.am0.yahoodns.net"}, ProviderYahoo},
		{Result{Recipient: "x@aol.com"}, ProviderYahoo},
		{Result{Recipient: "x@ymail.com"}, ProviderYahoo},
		{Result{Recipient: "x@me.com"}, ProviderApple},
		{Result{Recipient: "x@mac.com"}, ProviderApple},
		{Result{Recipient: "x@icloud.com"}, ProviderApple},
		{Result{Recipient: "x@some.com"}, ProviderOther},
		{Result{Recipient: "x@example.org", Diagnostic: "550 5.7.1 see https://support.google.com/mail gsmtp"}, ProviderGoogle},
		{Result{Recipient: "x@example.org", Diagnostic: "host mx1.hotmail.com said 550"}, ProviderMicrosoft},
	}
	for _, c := range cases {
		if got := providerOf(&c.r); got != c.want {
			t.Errorf("providerOf(%+v) = %q, want %q", c.r, got, c.want)
		}
	}
}

// TestCodes checks status and reply code extraction from diagnostics.
func TestCodes(t *testing.T) {
	cases := []struct{ diag, status, reply string }{
		{"550 5.1.1 <a@b.test>: Recipient address rejected", "5.1.1", "550"},
		{"550-5.7.26 Unauthenticated email", "5.7.26", "550"},
		{"Sorry, no mailbox here by that name. (#5.1.1)", "5.1.1", ""},
		{"host 192.0.2.45 said: 452 Mailbox full", "", "452"},
		{"5.1.0 - Unknown address error 550-'5.7.1 Access denied'", "5.1.0", "550"},
		{"connect to 192.0.2.1:25: Connection timed out", "", ""},
		{"421 4.7.650 The mail server has been temporarily rate limited", "4.7.650", "421"},
	}
	for _, c := range cases {
		if got := findStatus(c.diag); got != c.status {
			t.Errorf("findStatus(%q) = %q, want %q", c.diag, got, c.status)
		}
		r, _ := codePair(c.diag)
		if r == "" {
			r = findReplyCode(c.diag)
		}
		if r != c.reply {
			t.Errorf("reply code of %q = %q, want %q", c.diag, r, c.reply)
		}
	}
}

// TestCharsets checks the body text of fixtures in legacy or mislabelled
// charsets decodes to the expected UTF-8.
func TestDiagnosticContext(t *testing.T) {
	// The text block of a report without Diagnostic-Code keeps its first
	// line (the local delivery agent's reason), not only the reply.
	raw, err := os.ReadFile(filepath.Join("testdata", "text_sendmail_blocks.eml"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Decode(raw)
	if err != nil || len(res) != 1 {
		t.Fatalf("Decode: %v %+v", err, res)
	}
	if d := res[0].Diagnostic; !strings.Contains(d, "unknown user: rita") || !strings.Contains(d, "Service unavailable") || strings.Contains(d, "Reporting-MTA") {
		t.Errorf("diagnostic %q", d)
	}
}

func TestCharsets(t *testing.T) {
	cases := []struct{ file, want string }{
		{"text_mislabelled_eucjp", "送信先メールアドレスが見つかりません"},
		{"text_koi8r", "Почтовый ящик переполнен"},
		{"text_iso2022jp", "宛先のメールボックスは容量を超えています"},
		{"autoreply_vacation", "Café closed"},
	}
	for _, c := range cases {
		raw, err := os.ReadFile(filepath.Join("testdata", c.file+".eml"))
		if err != nil {
			t.Fatal(err)
		}
		m, err := parseMessage(normalise(raw))
		if err != nil {
			t.Fatal(err)
		}
		if got := m.bodyText(); !strings.Contains(got, c.want) {
			t.Errorf("%s: body %q lacks %q", c.file, got, c.want)
		}
	}
	if got := decodeWords("=?koi8-r?B?7sUgxM/T1MHXzMXOzw==?="); got != "Не доставлено" {
		t.Errorf("RFC 2047 koi8-r word decoded to %q", got)
	}
}

// TestOriginalMarkersAnchor checks every original marker contains the word
// indexOriginalMarker anchors on, and that markers are found.
func TestOriginalMarkersAnchor(t *testing.T) {
	for _, m := range originalMarkers {
		if !strings.Contains(m, "message") {
			t.Errorf("original marker %q lacks the anchor word \"message\"", m)
		}
	}
	text := "hello\nthe message could not be delivered\n\n--- below this line is a copy of the message.\n\nfrom: a@b.test\n"
	if got, want := indexOriginalMarker(text), strings.Index(text, "--- below"); got != want {
		t.Errorf("indexOriginalMarker = %d, want %d", got, want)
	}
	if got := indexOriginalMarker("no marker here\nmessage text\n"); got != -1 {
		t.Errorf("indexOriginalMarker found %d in a text without marker", got)
	}
}

// TestQuotedPrintable checks the lenient quoted-printable decoder.
func TestQuotedPrintable(t *testing.T) {
	cases := map[string]string{
		"Caf=E9 =3D ok":          "Caf\xe9 = ok",
		"soft=\nbreak":           "softbreak",
		"soft= \t\nbreak":        "softbreak",
		"lower=e9case":           "lower\xe9case",
		"bad=ZZescape":           "bad=ZZescape",
		"end=":                   "end",
		"=E3=81=82 UTF-8":        "あ UTF-8",
		"line one\nline two=\n!": "line one\nline two!",
	}
	for in, want := range cases {
		if got := string(decodeQP([]byte(in))); got != want {
			t.Errorf("decodeQP(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCleanAddress checks address clean-up.
func TestCleanAddress(t *testing.T) {
	cases := map[string]string{
		"rfc822; <John.Doe@EXAMPLE.com>":    "John.Doe@example.com",
		"  kim@example.net.  ":              "kim@example.net",
		"\"neko..nyaan\"@Example.ORG":       "\"neko..nyaan\"@example.org",
		"Kim <kim@example.net> (comment)":   "kim@example.net",
		"mailto:kim@example.net":            "kim@example.net",
		"kim@example.net\n\n-----\nbounced": "kim@example.net",
		"no address here":                   "",
		"@example.net":                      "",
	}
	for in, want := range cases {
		if got := cleanAddress(in); got != want {
			t.Errorf("cleanAddress(%q) = %q, want %q", in, got, want)
		}
	}
}
