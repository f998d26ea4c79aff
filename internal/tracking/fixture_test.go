package tracking_test

import (
	"fmt"
	"strings"

	"github.com/rebound-hq/rebound/internal/dsn"
)

// bounce describes a bounce message the tests generate (the repository's
// own fixtures; no corpus file is used).
type bounce struct {
	ID        string // the bounce's own Message-ID (makes the message unique)
	To        string // top-level To of the bounce (a VERP address, say)
	Recipient string
	Action    string // failed (default), delayed, delivered
	Status    string // enhanced status code, default 5.1.1
	Diag      string // Diagnostic-Code text after "smtp; "
	RemoteMTA string
	// Original message headers.
	OrigID   string
	Campaign string // X-Rebound-Campaign
	Lead     string // X-Rebound-Lead
	// Extra recipients reported in the same message (same status).
	More []string
	CRLF bool
	// Trace headers prepended (differ between copies of one bounce).
	Trace string
}

// bytes renders the bounce as an RFC 6522 multipart/report with an RFC 3464
// delivery-status part and the original's headers (text/rfc822-headers).
func (b bounce) bytes() []byte {
	if b.Action == "" {
		b.Action = "failed"
	}
	if b.Status == "" {
		b.Status = "5.1.1"
	}
	if b.Diag == "" {
		b.Diag = fmt.Sprintf("550 %s <%s>: Recipient address rejected: User unknown in virtual mailbox table", b.Status, b.Recipient)
	}
	if b.RemoteMTA == "" {
		b.RemoteMTA = "mx.example.net"
	}
	if b.To == "" {
		b.To = "sender@example.org"
	}
	var w strings.Builder
	w.WriteString(b.Trace)
	fmt.Fprintf(&w, "Return-Path: <>\nFrom: MAILER-DAEMON@mail.example.org (Mail Delivery System)\nTo: %s\n", b.To)
	fmt.Fprintf(&w, "Subject: Undelivered Mail Returned to Sender\nMessage-ID: <%s@mail.example.org>\n", b.ID)
	w.WriteString("Date: Mon, 30 Nov 2026 02:00:00 +0000\nMIME-Version: 1.0\n")
	w.WriteString("Content-Type: multipart/report; report-type=delivery-status; boundary=\"BOUNDARY\"\n\n")
	w.WriteString("This is a MIME-encapsulated message.\n\n--BOUNDARY\nContent-Type: text/plain; charset=us-ascii\n\n")
	w.WriteString("I'm sorry to have to inform you that your message could not\nbe delivered to one or more recipients.\n\n")
	fmt.Fprintf(&w, "<%s>: host %s said: %s\n\n", b.Recipient, b.RemoteMTA, b.Diag)
	w.WriteString("--BOUNDARY\nContent-Type: message/delivery-status\n\n")
	w.WriteString("Reporting-MTA: dns; mail.example.org\nArrival-Date: Mon, 30 Nov 2026 01:59:00 +0000\n")
	for _, rcpt := range append([]string{b.Recipient}, b.More...) {
		fmt.Fprintf(&w, "\nFinal-Recipient: rfc822; %s\nOriginal-Recipient: rfc822;%s\nAction: %s\nStatus: %s\n", rcpt, rcpt, b.Action, b.Status)
		fmt.Fprintf(&w, "Remote-MTA: dns; %s\nDiagnostic-Code: smtp; %s\n", b.RemoteMTA, strings.ReplaceAll(b.Diag, b.Recipient, rcpt))
	}
	w.WriteString("\n--BOUNDARY\nContent-Type: text/rfc822-headers\n\n")
	w.WriteString("From: Sales <sender@example.org>\n")
	fmt.Fprintf(&w, "To: %s\nSubject: Hello there\nDate: Mon, 30 Nov 2026 01:58:00 +0000\n", b.Recipient)
	if b.OrigID != "" {
		fmt.Fprintf(&w, "Message-ID: <%s>\n", b.OrigID)
	}
	if b.Campaign != "" {
		fmt.Fprintf(&w, "X-Rebound-Campaign: %s\n", b.Campaign)
	}
	if b.Lead != "" {
		fmt.Fprintf(&w, "X-Rebound-Lead: %s\n", b.Lead)
	}
	w.WriteString("\n--BOUNDARY--\n")
	s := w.String()
	if b.CRLF {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	return []byte(s)
}

// softDiag and friends are diagnostic texts for common outcomes.
const (
	softDiag    = "452 4.2.2 The email account that you tried to reach is over quota."
	blockedDiag = "550 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org"
)

// autoReply is an RFC 3834 auto-reply.
func autoReply(id, from string) []byte {
	return []byte(fmt.Sprintf("From: %s\nTo: sender@example.org\nSubject: Out of office\nMessage-ID: <%s@example.net>\n"+
		"Date: Mon, 30 Nov 2026 02:00:00 +0000\nAuto-Submitted: auto-replied\nContent-Type: text/plain\n\n"+
		"I am out of the office until Monday.\n", from, id))
}

// plainMail is ordinary mail (not a bounce).
func plainMail(id string) []byte {
	return []byte(fmt.Sprintf("From: friend@example.net\nTo: sender@example.org\nSubject: lunch?\nMessage-ID: <%s@example.net>\n"+
		"Date: Mon, 30 Nov 2026 02:00:00 +0000\nContent-Type: text/plain\n\nAre you free for lunch?\n", id))
}

// dsnResult shortens dsn.Result in test decoders.
type dsnResult = dsn.Result
