package classify

import (
	"testing"

	"github.com/rebound-hq/rebound/internal/dsn"
)

// TestProviderRules checks the provider tables of rhost.go on replies
// written after the providers' documented texts.
func TestProviderRules(t *testing.T) {
	cases := []struct {
		remote, reporting, status, reply, command, diag string
		reason                                          string
		invalid                                         bool
	}{
		// NTT docomo: the same words mean a dead mailbox at RCPT TO and a
		// sender refusal after DATA.
		{"mfsmax.docomo.ne.jp", "", "5.0.0", "550", "RCPT", "550 Unknown user neko@docomo.example.jp", ReasonUserUnknown, true},
		{"mfsmax.docomo.ne.jp.", "", "5.0.0", "550", "", "550 Unknown user neko@docomo.example.jp (in reply to end of DATA command)", ReasonRejected, false},
		{"mfsmax.docomo.ne.jp", "", "5.2.0", "550", "DATA", "550 Unknown user neko@docomo.example.jp", ReasonFiltered, false},
		{"mfsmax.docomo.ne.jp", "", "5.0.0", "552", "", "552 too much mail data", ReasonMailboxFull, false},
		// without the host, the generic rules apply
		{"mx.example.net", "", "5.0.0", "550", "DATA", "550 Unknown user neko@example.jp", ReasonFiltered, false},
		// not a suffix at a label boundary
		{"notdocomo.ne.jp", "", "5.0.0", "550", "DATA", "550 Unknown user neko@example.jp", ReasonFiltered, false},
		// Symantec Email Security.cloud, recognised by the reporting host
		{"mx.example.org", "server-7.bemta-3.messagelabs.com", "5.0.0", "550", "", "550 neko@example.org... No such user", ReasonUserUnknown, true},
		{"", "cluster1.eu.messagelabs.com", "", "553", "", "553 sorry, your envelope sender is in my badmailfrom list (#5.7.1)", ReasonRejected, false},
		{"", "cluster1.eu.messagelabs.com", "", "501", "", "501 Connection rejected by policy [7.7] 20805, please visit www.messagelabs.com/support", ReasonBadReputation, false},
		// Orange / La Poste references, wherever the reply came from
		{"", "", "4.2.0", "421", "", "421 4.2.0 Service refuse. Veuillez essayer plus tard. Service refused, please try later. OFR005_505 [505]", ReasonSystemError, false},
		{"", "", "5.7.1", "554", "", "554 5.7.1 <mx.example.net[192.0.2.1]:1234>: Client host rejected: #216 lpn LPN000_630", ReasonPolicyViolation, false},
		{"", "", "5.5.0", "550", "", "550 5.5.0 Le compte du destinataire est bloque. The recipient account isblocked. LPN007_426", ReasonSuspend, false},
		{"", "", "5.1.1", "550", "", "550 5.1.1 Adresse d au moins un destinataire invalide. Invalid recipient. OFR_416 [416]", ReasonUserUnknown, true},
		{"", "", "5.7.1", "550", "", "550 5.7.1 Service unavailable; client [192.0.2.1] blocked using Spamhaus LPNAAA_101", ReasonBlocked, false},
		// a reference meaning only "try again later" leaves the generic
		// rules ("service refused" is a refusal of our host)
		{"", "", "4.2.1", "421", "", "421 4.2.1 Service refuse. Veuillez essayer plus tard. Service refused, please try later. LPN006_107", ReasonBlocked, false},
		{"", "", "4.0.0", "", "", "Veuillez essayer plus tard. LPN003_109", ReasonOnHold, false},
		// not a reference: letters run on
		{"", "", "5.0.0", "550", "", "550 OFRX_416 nonsense", ReasonOnHold, false},
	}
	for _, c := range cases {
		v := Classify(dsn.Result{Kind: dsn.KindBounce, RemoteMTA: c.remote, ReportingMTA: c.reporting,
			Status: c.status, ReplyCode: c.reply, Command: c.command, Diagnostic: c.diag, DiagnosticType: "smtp"})
		if v.Reason != c.reason || v.AddressInvalid != c.invalid {
			t.Errorf("%s/%s %q: got %s invalid=%v, want %s invalid=%v", c.remote, c.reporting, c.diag, v.Reason, v.AddressInvalid, c.reason, c.invalid)
		}
	}
}

// TestLocalDeliveryUnknownUser checks that the local delivery agent's
// "unknown user" is a dead mailbox whatever code the report carries.
func TestLocalDeliveryUnknownUser(t *testing.T) {
	v := Classify(dsn.Result{Kind: dsn.KindBounce, Status: "5.5.0", ReplyCode: "554", DiagnosticType: "smtp",
		Diagnostic: "mail.local: unknown user: neko 554 <neko@example.net>... Service unavailable"})
	if v.Reason != ReasonUserUnknown || !v.AddressInvalid {
		t.Errorf("got %+v", v)
	}
}

// TestGiveUpAfterQueueLifetime checks that a give-up "in the queue too
// long" that no format maps to its own reason is expired, whatever the
// last temporary error was.
func TestGiveUpAfterQueueLifetime(t *testing.T) {
	v := Classify(dsn.Result{Kind: dsn.KindBounce, Status: "4.4.1", DiagnosticType: "smtp",
		Diagnostic: "Sorry, I wasn't able to establish an SMTP connection. (#4.4.1) I'm not going to try again; this message has been in the queue too long."})
	if v.Reason != ReasonExpired || v.Label != LabelExpired {
		t.Errorf("got %+v", v)
	}
}

// TestProviderWordings checks replies that mailbox providers document,
// classified from their words alone (no command, generic or no code).
func TestProviderWordings(t *testing.T) {
	cases := []replyCase{
		{"", "552", "552 1 Requested mail action aborted, mailbox not found", ReasonUserUnknown},
		{"5.5.0", "550", "550 5.5.0 Requested action not taken: mailbox unavailable (S2017062302)", ReasonUserUnknown},
		{"5.7.1", "550", "550 5.7.1 No such user!", ReasonUserUnknown},
		{"", "550", "550 Message was not accepted -- invalid mailbox. Local mailbox neko@example.ru is unavailable: user not found", ReasonUserUnknown},
		{"", "550", "550 Invalid Recipient - https://community.mimecast.com/docs/DOC-1369#550 [abc.uk10]", ReasonUserUnknown},
		{"", "554", "554 delivery error: dd neko@yahoo.com is no longer valid. [-20] - mta1.mail.example.yahoo.com", ReasonSuspend},
		{"", "421", "421 Max message per connection reached, closing transmission channel", ReasonTooManyConn},
		{"", "451", "451 Message temporarily deferred due to unresolvable RFC.5321 from domain", ReasonRejected},
	}
	checkReplyReasons(t, cases)
}

// TestFormatUserUnknownUnderDisabledCode checks that a format's "no such
// user" category gives way to an X.2.1 "mailbox disabled" code, while the
// same words read from the text at RCPT TO stay userunknown.
func TestFormatUserUnknownUnderDisabledCode(t *testing.T) {
	v := Classify(dsn.Result{Kind: dsn.KindBounce, Status: "5.2.1", ReplyCode: "550", Hint: ReasonUserUnknown, DiagnosticType: "smtp",
		Diagnostic: "550 5.2.1 <hana@example.org>... User Unknown"})
	if v.Reason != ReasonSuspend || v.AddressInvalid {
		t.Errorf("hint userunknown under 5.2.1: got %+v", v)
	}
	v = Classify(dsn.Result{Kind: dsn.KindBounce, Status: "5.2.1", ReplyCode: "550", Command: "RCPT", DiagnosticType: "smtp",
		Diagnostic: "550 5.2.1 <hana@example.org>... User Unknown"})
	if v.Reason != ReasonUserUnknown {
		t.Errorf("text at RCPT under 5.2.1: got %+v", v)
	}
}

// TestSenderAddressCodes checks that X.1.7 and X.1.8 (the sender's address
// or domain is bad, RFC 3463 §3.2) make an address wording the sender's.
func TestSenderAddressCodes(t *testing.T) {
	for _, st := range []string{"5.1.7", "5.1.8"} {
		v := Classify(dsn.Result{Kind: dsn.KindBounce, Status: st, ReplyCode: "550", DiagnosticType: "smtp", Diagnostic: "550 " + st + " Invalid address"})
		if v.Reason != ReasonRejected || v.AddressInvalid {
			t.Errorf("%s: got %+v", st, v)
		}
	}
}

// TestReferenceCodes checks the providers' reference codes read from the
// text wherever the reply came from.
func TestReferenceCodes(t *testing.T) {
	cases := []replyCase{
		{"5.1.0", "550", "550 5.1.0 <bounce@example.net> sender rejected. Refer to Error Codes section at https://www.cox.com/residential/support/email-error-codes.html for more information. AUP#CDRBL", ReasonBlocked},
		{"", "554", "554 192.0.2.1 rejected by cox. AUP#IPBL0010", ReasonBlocked},
		{"", "550", "550 Message rejected. AUP#CXSNDR", ReasonAuthFailure},
		{"", "554", "554 This IP has been blocked for the day, for attempting to send too many messages containing content judged to be spam by the Internet community. IB111", ReasonBlocked},
		{"", "550", "550 192.0.2.22 has sent to too many recipients this hour. IB607", ReasonSpeeding},
		{"5.1.1", "550", "550 5.1.1 RCP-P2 http://postmaster.facebook.com/response_codes?ip=192.0.2.1#rcp Refused due to recipient preferences", ReasonFiltered},
		{"5.1.1", "550", "550 5.1.1 RCP-P1 http://postmaster.facebook.com/response_codes?ip=192.0.2.1#rcp", ReasonUserUnknown},
		{"", "554", "554 5.7.1 Spectrum does not accept IPv6 mail, please use IPv4. AUP#I1260", ReasonNetworkError},
		{"", "550", "550 5.1.0 Your email was rejected for attempting to send as a different email address. AUP#O1500", ReasonRejected},
		{"", "550", "550 Sorry, see https://mail.i.ua/err/3/", ReasonSuspend},
		// "rcp-p2" without Facebook named, or IB followed by more digits,
		// is nobody's reference
		{"5.1.1", "550", "550 5.1.1 RCP-P2 no such user", ReasonUserUnknown},
		{"", "550", "550 Mailbox IB1234 not here", ReasonOnHold},
	}
	checkReplyReasons(t, cases)
}

// TestHostTables checks the phrase tables of Cox, GoDaddy, Tencent and
// Apple, selected by the remote host or, failing that, the recipient's
// domain.
func TestHostTables(t *testing.T) {
	cases := []struct{ remote, rcpt, diag, reason string }{
		{"mx.cox.net", "", "550 recipient rejected", ReasonUserUnknown},
		{"", "neko@cox.net", "421 too many sessions from 192.0.2.1", ReasonTooManyConn},
		{"smtp.secureserver.net", "", "550 Account does not exist", ReasonUserUnknown},
		{"mx3.qq.com", "", "550 Mailbox not found", ReasonUserUnknown},
		{"", "neko@qq.com", "550 Suspected spam", ReasonRejected},
		{"mx01.mail.icloud.com", "", "550 5.1.1 <neko@icloud.com>: inactive email address", ReasonUserUnknown},
		{"", "neko@icloud.com", "550 5.1.6 recipient no longer on server: neko@icloud.com", ReasonHasMoved},
		{"us-smtp-inbound-1.mimecast.com", "", "550 Administrative prohibition - envelope blocked - https://community.mimecast.com/docs/DOC-1369#550", ReasonRejected},
		{"eu-smtp-inbound-2.mimecast.com", "", "554 email rejected due to security policies - https://community.mimecast.com/docs/DOC-1369#554", ReasonVirusDetected},
		{"mx.zoho.com", "", "541 5.4.1 Mail rejected by destination domain", ReasonRejected},
		{"", "neko@ezweb.ne.jp", "550 <neko@ezweb.ne.jp>: User unknown", ReasonUserUnknown},
		{"lsean.ezweb.ne.jp", "neko@ezweb.ne.jp", "550 : User unknown", ReasonFiltered},
		{"mta6.am0.yahoodns.net", "", "421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1", ReasonRejected},
		{"", "", "421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1", ReasonBadReputation},
		{"mx1.hotmail.com", "", "550 Requested action not taken: mailbox unavailable", ReasonUserUnknown},
		{"", "neko@outlook.com", "550 5.5.0 Requested action not taken: mailbox unavailable", ReasonUserUnknown},
		{"mx00.t-online.de", "", "554 IP=192.0.2.1 - A problem occurred. (Ask your postmaster for help or to contact tosa@rx.t-online.de to clarify.) (BL)", ReasonBlocked},
		// the same words elsewhere keep their generic meaning
		{"mx.example.org", "neko@example.org", "550 Requested action not taken: mailbox unavailable", ReasonFiltered},
		{"mx.example.org", "neko@example.org", "550 Mailbox not found", ReasonFiltered},
	}
	for _, c := range cases {
		v := Classify(dsn.Result{Kind: dsn.KindBounce, RemoteMTA: c.remote, Recipient: c.rcpt, Diagnostic: c.diag, DiagnosticType: "smtp"})
		if v.Reason != c.reason {
			t.Errorf("%s/%s %q: got %s, want %s", c.remote, c.rcpt, c.diag, v.Reason, c.reason)
		}
	}
}

// TestBareCodes checks the reason of a bounce that carries only a code,
// for the codes whose meaning depends on the class or was chosen over a
// neighbour (status.go).
func TestBareCodes(t *testing.T) {
	cases := []struct{ status, reason string }{
		{"4.7.1", ReasonBlocked},       // a temporary refusal of our host
		{"5.7.1", ReasonSecurityError}, // delivery not authorised
		{"5.5.3", ReasonTooManyConn},   // too many recipients in the transaction
		{"5.7.28", ReasonSpamDetected}, // part of a mail flood
		{"5.7.30", ReasonFailedSTARTTLS},
		{"5.1.9", ReasonSystemError},
		{"4.4.1", ReasonExpired}, // a final report: the sender gave up
		{"4.3.0", ReasonUndefined},
		// Microsoft's extended codes
		{"4.7.650", ReasonBlocked},
		{"5.7.606", ReasonBlocked},
		{"5.7.705", ReasonSpeeding},
		{"4.4.316", ReasonExpired},
		{"5.6.11", ReasonContentError},
		{"5.7.1000", ReasonUndefined}, // malformed: four-digit detail
	}
	for _, c := range cases {
		if got := Classify(dsn.Result{Kind: dsn.KindBounce, Status: c.status}).Reason; got != c.reason {
			t.Errorf("%s: got %s, want %s", c.status, got, c.reason)
		}
	}
}

// TestSendmailHostUnknown checks that Sendmail's own DNS answer about the
// recipient's domain stays hostunknown even where a transcript shows
// another exchange (MAIL FROM) refused before it.
func TestSendmailHostUnknown(t *testing.T) {
	v := Classify(dsn.Result{Kind: dsn.KindBounce, Status: "5.0.0", ReplyCode: "550", Command: "MAIL", DiagnosticType: "smtp",
		Diagnostic: "550 Host unknown (Authoritative answer from name server)"})
	if v.Reason != ReasonHostUnknown || !v.AddressInvalid {
		t.Errorf("got %+v", v)
	}
	v = Classify(dsn.Result{Kind: dsn.KindBounce, Status: "5.0.0", ReplyCode: "550", Command: "MAIL", DiagnosticType: "smtp",
		Diagnostic: "550 Host unknown"})
	if v.Reason != ReasonRejected {
		t.Errorf("plain host unknown at MAIL FROM: got %+v", v)
	}
}

// TestDelayedUnderPolicyCode checks that a delay notice whose code names a
// policy refusal reports that refusal, and a bare delay stays expired.
func TestDelayedUnderPolicyCode(t *testing.T) {
	if got := Classify(dsn.Result{Kind: dsn.KindDelayed, Status: "4.7.1", Action: "delayed"}).Reason; got != ReasonBlocked {
		t.Errorf("delayed 4.7.1: got %s", got)
	}
	if got := Classify(dsn.Result{Kind: dsn.KindDelayed, Status: "4.4.0", Action: "delayed"}).Reason; got != ReasonExpired {
		t.Errorf("delayed 4.4.0: got %s", got)
	}
}

// replyCase is a reply classified from its status, reply code and words
// alone (no command, no host), and the reason it must get.
type replyCase struct{ status, reply, diag, reason string }

// checkReplyReasons classifies each case as an SMTP bounce and checks its
// reason.
func checkReplyReasons(t *testing.T, cases []replyCase) {
	t.Helper()
	for _, c := range cases {
		v := Classify(dsn.Result{Kind: dsn.KindBounce, Status: c.status, ReplyCode: c.reply, Diagnostic: c.diag, DiagnosticType: "smtp"})
		if v.Reason != c.reason {
			t.Errorf("%q: got %s, want %s", c.diag, v.Reason, c.reason)
		}
	}
}
