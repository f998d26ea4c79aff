package dsn

import (
	"strings"
	"testing"
	"time"
)

// TestHostileInputs decodes inputs built to trigger quadratic work (long
// folded headers and delivery-status fields, many style tags, many
// recipient lines, many parts) and checks each finishes quickly.
func TestHostileInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("hostile input test skipped in -short mode")
	}
	const n = 200000
	cases := map[string]string{
		"folded header": "From: a@b.test\nSubject: x\nX-Long: a\n" + strings.Repeat(" b\n", n) + "\nbody\n",
		"folded ds field": "From: MAILER-DAEMON@b.test\nContent-Type: multipart/report; boundary=z\n\n--z\nContent-Type: message/delivery-status\n\nFinal-Recipient: rfc822; a@b.test\nAction: failed\nStatus: 5.1.1\nDiagnostic-Code: smtp; 550\n" +
			strings.Repeat(" more\n", n) + "\n--z--\n",
		"style tags":      "From: a@b.test\nContent-Type: text/html\n\n" + strings.Repeat("<style>x", n/4),
		"recipient lines": "From: MAILER-DAEMON@b.test\nSubject: Undelivered Mail\n\n" + strings.Repeat("<u@example.test>: 550 5.1.1 unknown\n", n/4),
		"distinct recipients": "From: MAILER-DAEMON@b.test\nSubject: Undelivered Mail\n\n" + func() string {
			var b strings.Builder
			for i := 0; i < 20000; i++ {
				b.WriteString("<u")
				b.WriteString(itoa(i))
				b.WriteString("@example.test>: 550 5.1.1 unknown\n")
			}
			return b.String()
		}(),
		"parts":  "From: a@b.test\nContent-Type: multipart/mixed; boundary=z\n\n" + strings.Repeat("--z\n\nx\n", maxParts-5) + "--z--\n",
		"arrows": "From: MAILER-DAEMON@b.test\nSubject: Returned mail\n\n" + strings.Repeat(">>> DATA\n<<< 550 5.7.1 no\n", n/8),
	}
	for name, raw := range cases {
		start := time.Now()
		_, _ = Decode([]byte(raw))
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s (%d bytes): decoding took %v", name, len(raw), d)
		} else {
			t.Logf("%s (%d bytes): %v", name, len(raw), d)
		}
	}
}
