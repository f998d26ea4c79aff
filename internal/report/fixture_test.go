package report

import (
	"fmt"
	"strings"
)

// dsnMsg describes a bounce message the tests generate (own fixtures; no
// corpus file is used).
type dsnMsg struct {
	ID        string // the bounce's own Message-ID
	Recipient string
	Action    string // failed (default) or delayed
	Status    string
	Diag      string
	RemoteMTA string
	OrigID    string // Message-ID of the original, "" for none
	Campaign  string // X-Rebound-Campaign
	Lead      string // X-Rebound-Lead
	Trace     string // trace headers prepended (copies of one bounce differ here)
}

// bytes renders m as an RFC 6522 multipart/report with an RFC 3464
// delivery-status part and the original's headers.
func (m dsnMsg) bytes() []byte {
	if m.Action == "" {
		m.Action = "failed"
	}
	if m.RemoteMTA == "" {
		m.RemoteMTA = "mx.example.net"
	}
	var w strings.Builder
	w.WriteString(m.Trace)
	w.WriteString("Return-Path: <>\nFrom: MAILER-DAEMON@mail.example.org (Mail Delivery System)\nTo: sender@example.org\n")
	fmt.Fprintf(&w, "Subject: Undelivered Mail Returned to Sender\nMessage-ID: <%s@mail.example.org>\n", m.ID)
	w.WriteString("Date: Mon, 23 Nov 2026 02:00:00 +0000\nMIME-Version: 1.0\n")
	w.WriteString("Content-Type: multipart/report; report-type=delivery-status; boundary=\"BOUNDARY\"\n\n")
	w.WriteString("--BOUNDARY\nContent-Type: text/plain; charset=us-ascii\n\n")
	fmt.Fprintf(&w, "Your message could not be delivered.\n\n<%s>: host %s said: %s\n\n", m.Recipient, m.RemoteMTA, m.Diag)
	w.WriteString("--BOUNDARY\nContent-Type: message/delivery-status\n\nReporting-MTA: dns; mail.example.org\n")
	fmt.Fprintf(&w, "\nFinal-Recipient: rfc822; %s\nAction: %s\nStatus: %s\n", m.Recipient, m.Action, m.Status)
	fmt.Fprintf(&w, "Remote-MTA: dns; %s\nDiagnostic-Code: smtp; %s\n", m.RemoteMTA, m.Diag)
	w.WriteString("\n--BOUNDARY\nContent-Type: text/rfc822-headers\n\nFrom: Sales <sender@example.org>\n")
	fmt.Fprintf(&w, "To: %s\nSubject: Hello\nDate: Mon, 23 Nov 2026 01:58:00 +0000\n", m.Recipient)
	if m.OrigID != "" {
		fmt.Fprintf(&w, "Message-ID: <%s>\n", m.OrigID)
	}
	if m.Campaign != "" {
		fmt.Fprintf(&w, "X-Rebound-Campaign: %s\n", m.Campaign)
	}
	if m.Lead != "" {
		fmt.Fprintf(&w, "X-Rebound-Lead: %s\n", m.Lead)
	}
	w.WriteString("\n--BOUNDARY--\n")
	return []byte(w.String())
}

// autoReplyMsg is an RFC 3834 auto-reply from addr.
func autoReplyMsg(id, addr string) []byte {
	return []byte(fmt.Sprintf("From: %s\nTo: sender@example.org\nSubject: Out of office\nMessage-ID: <%s@example.net>\n"+
		"Date: Mon, 23 Nov 2026 02:00:00 +0000\nAuto-Submitted: auto-replied\nContent-Type: text/plain\n\n"+
		"I am out of the office until Monday.\n", addr, id))
}

// outcome is one kind of bounce the generator draws: status, diagnostic,
// action and remote MTA.
type outcome struct {
	status, diag, action, mta string
}

var outcomes = []outcome{
	{"5.1.1", "550 5.1.1 <%s>: Recipient address rejected: User unknown in virtual mailbox table", "", ""},
	{"4.2.2", "452 4.2.2 The email account that you tried to reach is over quota.", "", ""},
	{"5.7.1", "550 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org", "", ""},
	{"4.4.1", "451 4.4.1 connection timed out", "delayed", ""},
	{"5.7.26", "550 5.7.26 This mail is unauthenticated, which poses a security risk to the sender and Gmail users", "", "gmail-smtp-in.l.google.com"},
	{"5.1.2", "550 5.1.2 Host or domain name not found. Name service error for name=nowhere.invalid", "", ""},
	{"4.4.7", "Delivery time expired", "", ""},
	{"5.2.1", "550 5.2.1 The email account that you tried to reach is disabled.", "", "gmail-smtp-in.l.google.com"},
}

// gmailDeferral is a Gmail rate/reputation deferral (soft).
var gmailDeferral = outcome{"4.7.28", "421 4.7.28 Our system has detected an unusual rate of unsolicited mail originating from your IP address.", "", "gmail-smtp-in.l.google.com"}
