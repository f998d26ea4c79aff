package dsn

import "testing"

// TestParseDeliveryStatus covers report layouts seen in the wild: fields
// before Final-Recipient, no blank line after the per-message fields,
// folded Diagnostic-Code, a Status comment as the only reason, a source
// route in Final-Recipient.
func TestParseDeliveryStatus(t *testing.T) {
	ds := `Reporting-MTA: dns; 10.0.0.1
Arrival-Date: Thu, 29 Apr 2012 23:34:45 -0700
Diagnostic-Code: smtp; 550 5.1.1 Refused due to
  recipient preferences
Status: 5.1.1
Final-Recipient: rfc822; a@example.com
Action: failed

Original-Recipient: rfc822;b@example.net
Final-Recipient: rfc822;@relay.example.net:b@host
Action: delayed
Status: 4.0.0 (example.net: host name lookup failure)

Final-Recipient: RFC822; <c@example.org>
Action: relayed
Status: 2.0.0
`
	res := parseDeliveryStatus(ds)
	if len(res) != 3 {
		t.Fatalf("got %d results: %+v", len(res), res)
	}
	want := []struct {
		rcpt, status, diag string
		kind               Kind
	}{
		{"a@example.com", "5.1.1", "550 5.1.1 Refused due to recipient preferences", KindBounce},
		{"b@example.net", "4.0.0 (example.net: host name lookup failure)", "example.net: host name lookup failure", KindDelayed},
		{"<c@example.org>", "2.0.0", "", KindDelivered},
	}
	for i, w := range want {
		r := res[i]
		if r.Recipient != w.rcpt && cleanAddress(r.Recipient) != cleanAddress(w.rcpt) {
			t.Errorf("#%d recipient %q, want %q", i+1, r.Recipient, w.rcpt)
		}
		if r.Status != w.status || r.Diagnostic != w.diag || r.Kind != w.kind {
			t.Errorf("#%d got status %q diag %q kind %q, want %q %q %q", i+1, r.Status, r.Diagnostic, r.Kind, w.status, w.diag, w.kind)
		}
		if r.ReportingMTA != "10.0.0.1" || r.ArrivalDate.IsZero() {
			t.Errorf("#%d per-message fields not applied: %q %v", i+1, r.ReportingMTA, r.ArrivalDate)
		}
	}
	if res[0].DiagnosticType != "smtp" {
		t.Errorf("diagnostic type %q", res[0].DiagnosticType)
	}
}
