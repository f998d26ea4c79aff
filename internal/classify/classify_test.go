package classify

import (
	"strings"
	"testing"

	"github.com/rebound-hq/rebound/internal/dsn"
)

// classifyCase is one row of the classification table: what a decoded
// result carries and the verdict expected for it. Diagnostics are written
// after the reply texts providers and MTAs publish or commonly return.
type classifyCase struct {
	kind    dsn.Kind
	status  string
	reply   string
	command string
	diag    string
	hint    string
	class   string
	reason  string
	label   string
	invalid bool
}

var classifyCases = []classifyCase{
	// ---- kinds with fixed answers
	{"auto_reply", "", "", "", "I am out of the office until Monday", "", "", "vacation", "Auto-reply", false},
	{"complaint", "", "", "", "This is an email abuse report", "", "", "feedback", "Complaint", false},
	{"delivered", "2.0.0", "250", "", "250 2.0.0 OK", "", "", "delivered", "", false},
	{"not_bounce", "", "", "", "Hello", "", "", "", "", false},

	// ---- userunknown (address_invalid)
	{"bounce", "5.1.1", "550", "RCPT", "550 5.1.1 <kijitora@example.com>: Recipient address rejected: User unknown in virtual mailbox table", "", "hard", "userunknown", "Invalid recipient", true},
	{"bounce", "5.1.1", "550", "", "550-5.1.1 The email account that you tried to reach does not exist. Please try 550-5.1.1 double-checking the recipient's email address for typos or 550-5.1.1 unnecessary spaces. Learn more at 550 5.1.1 https://support.google.com/mail/?p=NoSuchUser", "", "hard", "userunknown", "Invalid recipient", true},
	{"bounce", "5.1.10", "550", "", "550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup", "", "hard", "userunknown", "Invalid recipient", true},
	{"bounce", "5.4.1", "550", "", "550 5.4.1 Recipient address rejected: Access denied. AS(201806281) [DM6NAM10FT012.eop-nam10.prod.protection.outlook.com]", "", "hard", "userunknown", "Invalid recipient", true},
	{"bounce", "5.0.0", "550", "RCPT", "550 5.0.0 User unknown", "", "hard", "userunknown", "Invalid recipient", true},
	{"bounce", "", "", "", "Sorry, no mailbox here by that name. (#5.1.1)", "", "hard", "userunknown", "Invalid recipient", true},
	{"bounce", "5.1.1", "550", "", "550 5.1.1 <neko@example.jp>... User Unknown", "", "hard", "userunknown", "Invalid recipient", true},
	{"bounce", "", "554", "", "554 delivery error: dd This user doesn't have a yahoo.com account (x@yahoo.com) [0] - mta1234.mail.bf1.yahoo.com", "", "hard", "userunknown", "Invalid recipient", true},
	{"bounce", "", "", "", "** Address not found ** Your message wasn't delivered to kijitora@example.it because the address couldn't be found.", "", "hard", "userunknown", "Invalid recipient", true},
	{"bounce", "", "", "", "The recipient name is not recognized", "", "hard", "userunknown", "Invalid recipient", true},
	{"bounce", "5.0.0", "", "", `unknown user: "cy"`, "", "hard", "userunknown", "Invalid recipient", true}, // Postfix local(8), no command
	{"bounce", "5.1.1", "550", "", "550 5.1.1 <x@example.de>: Empfänger unbekannt", "", "hard", "userunknown", "Invalid recipient", true},
	{"bounce", "5.1.1", "550", "", "550 5.1.1 Utilisateur inconnu", "", "hard", "userunknown", "Invalid recipient", true},
	{"bounce", "", "550", "RCPT", "550 Usuario desconocido", "", "hard", "userunknown", "Invalid recipient", true},
	{"bounce", "", "550", "RCPT", "550 Пользователь не найден", "", "hard", "userunknown", "Invalid recipient", true},
	{"bounce", "", "550", "RCPT", "550 宛先のユーザーは存在しません", "", "hard", "userunknown", "Invalid recipient", true},
	{"bounce", "", "550", "RCPT", "550 用户不存在", "", "hard", "userunknown", "Invalid recipient", true},
	{"bounce", "", "", "", "", "userunknown", "hard", "userunknown", "Invalid recipient", true},
	{"bounce", "5.1.1", "", "", "", "", "hard", "userunknown", "Invalid recipient", true},
	// user-unknown wording answered to DATA, or with no code and no
	// command, is a filter's: the mailbox is not said to be dead
	{"bounce", "", "550", "DATA", "550 : User unknown", "", "hard", "filtered", "Spam or content", false},
	{"bounce", "5.0.0", "550", "", "550 5.0.0 User unknown", "", "hard", "filtered", "Spam or content", false},
	{"bounce", "5.2.0", "550", "", "550 Unknown user kijitora@example.jp", "", "hard", "filtered", "Spam or content", false},
	// ... even where the reply names the recipient, unless the provider's
	// own rule says so (rhost.go: au/KDDI)
	{"bounce", "", "550", "", "550 <kijitora@example.jp>: User unknown", "", "hard", "filtered", "Spam or content", false},
	// the same words at MAIL FROM concern the sender
	{"bounce", "5.1.0", "553", "MAIL", "553 5.1.0 neko.example.com does not exist", "", "hard", "rejected", "Blocked", false},

	// guards: local parts, host names and footers are not phrases
	{"bounce", "5.1.1", "550", "", "550 5.1.1 <spam-reports@example.com>: Recipient address rejected: User unknown in local recipient table", "", "hard", "userunknown", "Invalid recipient", true},
	{"bounce", "5.1.1", "550", "", "550 5.1.1 <mailboxfull@example.com>... User Unknown (scanned by antivirus)", "", "hard", "userunknown", "Invalid recipient", true},
	{"bounce", "5.1.1", "550", "", "550 5.1.1 User unknown - see https://help.uber.example/absorbs", "", "hard", "userunknown", "Invalid recipient", true},

	// ---- hostunknown
	{"bounce", "5.4.4", "", "", "Host or domain name not found. Name service error for name=example.invalid type=A: Host not found", "", "hard", "hostunknown", "Domain not found", true},
	{"bounce", "5.1.2", "", "", "", "", "hard", "hostunknown", "Domain not found", true},
	{"bounce", "", "550", "RCPT", "550 Host unknown", "", "hard", "hostunknown", "Domain not found", true},
	{"bounce", "5.0.0", "", "", "Sorry, I couldn't find any host named cx.example.com. (#5.1.2)", "", "hard", "hostunknown", "Domain not found", true},
	{"bounce", "", "554", "", "554 The mail could not be delivered to the recipient because the domain is not reachable. Please check the domain and try again", "", "hard", "hostunknown", "Domain not found", true},
	// a temporary DNS failure is a network error, not a dead domain
	{"bounce", "4.4.3", "", "", "Name service error for domain example.com: Host not found, try again", "", "soft", "networkerror", "Temporary failure", false},
	{"bounce", "5.0.0", "", "", "DNS Error: 12345 DNS type 'mx' lookup of example.comn responded with code NXDOMAIN Domain name not found: example.comn", "", "hard", "networkerror", "Temporary failure", false},

	{"bounce", "4.4.1", "", "", "connect to mx.example.com[192.0.2.2]:25: Host unreachable", "", "soft", "networkerror", "Temporary failure", false},
	{"bounce", "5.1.0", "550", "", "550 5.1.0 sender domain must exist", "", "hard", "rejected", "Blocked", false},

	{"bounce", "4.4.0", "451", "", "451 4.4.0 Domain not found", "", "soft", "networkerror", "Temporary failure", false},

	// ---- hasmoved, notaccept
	{"bounce", "5.1.6", "550", "", "550 5.1.6 recipient no longer on server: kijitora@example.jp", "", "hard", "hasmoved", "Invalid recipient", true},
	{"bounce", "", "551", "", "551 User not local; please try <neko@example.org>", "", "hard", "hasmoved", "Invalid recipient", true},
	{"bounce", "5.1.10", "556", "", "556 5.1.10 Recipient address has null MX", "", "hard", "notaccept", "Invalid recipient", true},
	{"bounce", "5.0.0", "", "", "No mx record found for domain=example.org", "", "hard", "notaccept", "Invalid recipient", true},
	{"bounce", "4.3.2", "", "", "", "", "soft", "notaccept", "Invalid recipient", false},

	// ---- suspend
	{"bounce", "5.2.1", "550", "", "550-5.2.1 The email account that you tried to reach is disabled. Learn more at 550 5.2.1 https://support.google.com/mail/?p=DisabledUser", "", "hard", "suspend", "Mailbox disabled", false},
	{"bounce", "", "554", "", "554 delivery error: dd Sorry your message to x@yahoo.com cannot be delivered. This account has been disabled or discontinued [#102].", "", "hard", "suspend", "Mailbox disabled", false},
	{"bounce", "5.5.0", "550", "", "550 5.5.0 Le compte du destinataire est bloque. The recipient account is blocked. LPN007_426", "", "hard", "suspend", "Mailbox disabled", false},
	{"bounce", "5.7.1", "550", "", "550 5.7.1 <x@example.com>: Recipient address rejected: User x@example.com temporary locked. Please try again later!", "", "hard", "suspend", "Mailbox disabled", false},

	// ---- mailboxfull
	{"bounce", "4.2.2", "452", "", "452 4.2.2 Mailbox full", "", "soft", "mailboxfull", "Mailbox full", false},
	{"bounce", "5.2.2", "552", "", "552-5.2.2 The recipient's inbox is out of storage space and inactive. Please 552-5.2.2 direct the recipient to 552 5.2.2 https://support.google.com/mail/?p=OverQuotaPerm", "", "hard", "mailboxfull", "Mailbox full", false},
	{"bounce", "4.2.2", "452", "", "452-4.2.2 The email account that you tried to reach is over quota. Please direct 452 4.2.2 the recipient to https://support.google.com/mail/?p=OverQuotaTemp", "", "soft", "mailboxfull", "Mailbox full", false},
	{"bounce", "5.2.2", "550", "", "550 5.2.2 STOREDRV.Deliver: mailbox full. The following information should help identify the cause: \"MapiExceptionShutoffQuotaExceeded\"", "", "hard", "mailboxfull", "Mailbox full", false},
	{"bounce", "5.1.1", "550", "", "550 5.1.1 user unknown; mailbox full", "", "hard", "mailboxfull", "Mailbox full", false},
	{"bounce", "", "552", "", "552 Requested mail action aborted: exceeded storage allocation", "", "hard", "mailboxfull", "Mailbox full", false},
	{"bounce", "", "550", "", "550 Postfach voll", "", "hard", "mailboxfull", "Mailbox full", false},
	{"bounce", "", "550", "", "550 5.2.2 Boîte du destinataire pleine", "", "hard", "mailboxfull", "Mailbox full", false},
	{"bounce", "", "550", "", "550 Caixa postal cheia", "", "hard", "mailboxfull", "Mailbox full", false},
	{"bounce", "", "550", "", "550 邮箱已满", "", "hard", "mailboxfull", "Mailbox full", false},
	{"bounce", "5.2.2", "", "", "", "", "hard", "mailboxfull", "Mailbox full", false},

	// ---- mesgtoobig, exceedlimit
	{"bounce", "5.3.4", "552", "", "552-5.3.4 Your message exceeded Google's message size limits. Please visit 552 5.3.4 https://support.google.com/mail/?p=MaxSizeError", "", "hard", "mesgtoobig", "Message too large", false},
	{"bounce", "", "552", "", "552 Message size exceeds fixed limit", "", "hard", "mesgtoobig", "Message too large", false},
	{"bounce", "5.2.3", "552", "", "552 5.2.3 Message size exceeds fixed maximum message size (10485760)", "", "hard", "exceedlimit", "Message too large", false},
	{"bounce", "5.2.3", "550", "", "550 5.2.3 RESOLVER.RST.RecipSizeLimit; message too large for this recipient", "", "hard", "exceedlimit", "Message too large", false},

	// ---- blocked, badreputation, requireptr, rejected, norelaying
	{"bounce", "5.7.1", "550", "", "550 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/192.0.2.1", "", "hard", "blocked", "Blocked", false},
	{"bounce", "5.7.606", "550", "", "550 5.7.606 Access denied, banned sending IP [198.51.100.222]. To request removal from this list please visit https://sender.office.com/", "", "hard", "blocked", "Blocked", false},
	{"bounce", "", "554", "", "554 Blocked - see https://ipcheck.proofpoint.com/?ip=192.0.2.1", "", "hard", "blocked", "Blocked", false},
	{"bounce", "5.7.1", "521", "", "521-5.7.1 Service unavailable; client [203.0.113.225] blocked using dnsbl.sorbs.net", "", "hard", "blocked", "Blocked", false},
	{"bounce", "", "550", "CONN", "550 Rejected", "", "hard", "blocked", "Blocked", false},
	{"bounce", "4.7.650", "451", "", "451 4.7.650 The mail server [192.0.2.25] has been temporarily rate limited due to IP reputation. For e-mail delivery information, see https://postmaster.live.com (S3113)", "", "soft", "badreputation", "Blocked", false},
	{"bounce", "5.7.1", "550", "", "550-5.7.1 [192.0.2.22] Our system has detected an unusual rate of unsolicited mail originating from your IP address.", "", "hard", "badreputation", "Blocked", false},
	{"bounce", "5.7.25", "550", "", "550-5.7.25 [192.0.2.202] The IP address sending this message does not have a PTR record setup, or the corresponding forward DNS entry does not point to the sending IP.", "", "hard", "requireptr", "Blocked", false},
	{"bounce", "4.7.1", "450", "", "450 4.7.1 Client host rejected: cannot find your hostname, [192.0.2.9]", "", "soft", "requireptr", "Blocked", false},
	{"bounce", "5.7.25", "", "", "", "", "hard", "requireptr", "Blocked", false},
	{"bounce", "5.1.8", "553", "", "553 5.1.8 <root@host.example.jp>... Domain of sender address root@host.example.jp does not exist", "", "hard", "rejected", "Blocked", false},
	{"bounce", "5.1.8", "501", "", "501 5.1.8 Sender address rejected", "", "hard", "rejected", "Blocked", false},
	{"bounce", "4.7.0", "421", "", "421 4.7.0 [TSS04] Messages from 192.0.2.192 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1; see https://postmaster.yahooinc.com/error-codes", "", "soft", "badreputation", "Blocked", false},
	{"bounce", "5.7.1", "550", "MAIL", "550 5.7.1 Access denied", "", "hard", "rejected", "Blocked", false},
	{"bounce", "5.7.1", "554", "", "554 5.7.1 <kijitora@example.com>: Relay access denied", "", "hard", "norelaying", "Blocked", false},
	{"bounce", "5.7.1", "550", "", "550 5.7.1 Unable to relay", "", "hard", "norelaying", "Blocked", false},

	// ---- authfailure, securityerror, failedstarttls, policyviolation, notcompliantrfc, syntaxerror
	{"bounce", "5.7.26", "550", "", "550-5.7.26 Unauthenticated email from example.com is not accepted due to domain's 550-5.7.26 DMARC policy. Please contact the administrator of example.com domain", "", "hard", "authfailure", "Policy or authentication", false},
	{"bounce", "5.7.509", "550", "", "550 5.7.509 Access denied, sending domain [EXAMPLE.COM] does not pass DMARC verification and has a DMARC policy of reject.", "", "hard", "authfailure", "Policy or authentication", false},
	{"bounce", "5.7.23", "550", "", "550 5.7.23 The message was rejected because of Sender Policy Framework violation", "", "hard", "authfailure", "Policy or authentication", false},
	{"bounce", "", "550", "", "550 DMARC check failed.", "", "hard", "authfailure", "Policy or authentication", false},
	{"bounce", "5.7.1", "550", "", "550 5.7.1 RESOLVER.RST.AuthRequired; authentication required", "", "hard", "securityerror", "Policy or authentication", false},
	{"bounce", "5.7.1", "", "", "", "", "hard", "securityerror", "Policy or authentication", false},
	{"bounce", "5.7.0", "530", "", "530 5.7.0 Must issue a STARTTLS command first", "", "hard", "failedstarttls", "Policy or authentication", false},
	{"bounce", "5.7.0", "454", "STARTTLS", "454 4.7.0 TLS not available due to local problem", "", "hard", "failedstarttls", "Policy or authentication", false},
	{"bounce", "4.7.5", "454", "STARTTLS", "454 4.7.5 Temporary authentication failure", "", "soft", "failedstarttls", "Policy or authentication", false},
	{"bounce", "5.7.0", "550", "", "550 5.7.0 Local Policy Violation", "", "hard", "policyviolation", "Policy or authentication", false},
	{"bounce", "5.7.0", "552", "", "552-5.7.0 This message was blocked because its content presents a potential 552-5.7.0 security issue.", "", "hard", "policyviolation", "Policy or authentication", false},
	{"bounce", "5.7.1", "550", "", "550-5.7.1 [192.0.2.222 13] Messages with multiple 550-5.7.1 addresses in From: header are not accepted.", "", "hard", "notcompliantrfc", "Policy or authentication", false},
	{"bounce", "5.7.1", "550", "", "550-5.7.1 This message is not RFC 5322 compliant. There are multiple Subject 550-5.7.1 headers. To reduce the amount of spam sent to Gmail, this message has 550-5.7.1 been blocked.", "", "hard", "notcompliantrfc", "Policy or authentication", false},
	{"bounce", "", "554", "", "554 Transaction failed: Duplicate header 'DKIM-Signature'.", "", "hard", "notcompliantrfc", "Policy or authentication", false},
	{"bounce", "", "503", "", "503 Improper sequence of commands", "", "hard", "syntaxerror", "Policy or authentication", false},

	// ---- spam, virus, content, filtered
	{"bounce", "5.7.1", "550", "", "550 5.7.1 Message content rejected, UBE, id=00000-00-000", "", "hard", "spamdetected", "Spam or content", false},
	{"bounce", "5.7.1", "550", "", "550-5.7.1 Our system has detected that this message is 550-5.7.1 likely unsolicited mail. To reduce the amount of spam sent to Gmail, 550-5.7.1 this message has been blocked.", "", "hard", "spamdetected", "Spam or content", false},
	{"bounce", "", "", "", "Your email to group kijitora@example.com was rejected due to spam classification. Set up SPF records for your sending domain if you have not done so already.", "", "soft", "spamdetected", "Spam or content", false},
	{"bounce", "5.7.1", "554", "RCPT", "554 5.7.1 Your IP is blacklisted for sending spam", "", "hard", "blocked", "Blocked", false},
	{"bounce", "5.7.1", "554", "DATA", "554 5.7.1 Your IP is blacklisted for sending spam", "", "hard", "spamdetected", "Spam or content", false},
	{"bounce", "", "550", "", "550 Virus Detected; Content Rejected", "", "hard", "virusdetected", "Spam or content", false},
	{"bounce", "5.6.0", "550", "", "550 5.6.0 Recipient address rejected: Media error", "", "hard", "contenterror", "Spam or content", false},
	{"bounce", "5.2.0", "550", "", "550 5.2.0 Message Filtered", "", "hard", "filtered", "Spam or content", false},
	{"bounce", "5.1.1", "550", "", "550 5.1.1 RCP-P2 http://postmaster.facebook.com/response_codes?ip=192.0.2.135#rcp Refused due to recipient preferences", "", "hard", "filtered", "Spam or content", false},

	// ---- rate limits
	{"bounce", "5.1.1", "550", "", "550 5.1.1 <kijitora@example.com> - 203.0.113.222 has sent to too many recipients this hour. IB607", "", "hard", "speeding", "Rate limited", false},
	{"bounce", "5.1.1", "550", "", "550 5.1.1 rate limited, try again later", "", "hard", "speeding", "Rate limited", false},
	{"bounce", "4.2.1", "450", "", "450-4.2.1 The user you are trying to contact is receiving mail at a rate that 450-4.2.1 prevents additional messages from being delivered.", "", "soft", "speeding", "Rate limited", false},
	{"bounce", "4.3.2", "452", "", "452 4.3.2 Connection rate limit exceeded.", "", "soft", "toomanyconn", "Rate limited", false},
	{"bounce", "", "421", "", "421 4.7.0 mx.example.com Error: too many connections from 192.0.2.1", "", "soft", "toomanyconn", "Rate limited", false},
	{"bounce", "", "550", "", "550 Ip frequency limited [Blocked IP 192.0.2.22]", "", "hard", "toomanyconn", "Rate limited", false},
	{"bounce", "", "552", "", "552 Too many recipients", "", "hard", "toomanyconn", "Rate limited", false},

	// ---- temporary failures and expiry
	{"bounce", "4.4.7", "", "", "Message expired: unable to deliver in 840 minutes.<421 4.4.2 Connection timed out>", "", "soft", "expired", "Delivery expired", false},
	{"bounce", "4.4.1", "", "", "connect to example.org[203.0.113.225]:25: Connection timed out", "", "soft", "expired", "Delivery expired", false},
	{"bounce", "4.4.7", "550", "", "550 4.4.7 QUEUE.Expired; message expired", "", "soft", "expired", "Delivery expired", false},
	{"bounce", "4.4.7", "", "", "Unable to deliver message to the following recipients, due to being unable to connect successfully to the destination mail server.", "", "soft", "expired", "Delivery expired", false},
	{"bounce", "", "", "", "Envelope expired", "", "soft", "expired", "Delivery expired", false},
	{"bounce", "4.4.1", "", "", "connect to mx.example.com[192.0.2.2]:25: Connection refused", "", "soft", "networkerror", "Temporary failure", false},
	{"bounce", "4.0.0", "421", "", "delivery temporarily suspended: connect to mx.example.com[192.0.2.232]: server refused to talk to me: 421 Service not available, closing transmission channel", "", "soft", "blocked", "Blocked", false},
	{"bounce", "4.4.1", "", "", "connect to mx.example.com[192.0.2.2]:25: No route to host", "", "soft", "networkerror", "Temporary failure", false},
	{"bounce", "4.4.1", "", "", "", "", "soft", "expired", "Delivery expired", false},
	{"bounce", "4.4.4", "", "", "", "", "soft", "networkerror", "Temporary failure", false},
	{"bounce", "5.4.4", "", "", "", "", "hard", "hostunknown", "Domain not found", true},
	{"bounce", "5.2.0", "550", "", "550 5.2.0 Refused", "", "hard", "filtered", "Spam or content", false},
	{"bounce", "4.3.0", "451", "", "451 4.3.0 Error: queue file write error", "", "soft", "systemerror", "Temporary failure", false},
	{"bounce", "", "554", "", "554 Service currently unavailable", "", "hard", "systemerror", "Temporary failure", false},
	{"bounce", "4.4.5", "452", "", "452 4.4.5 Insufficient disk space; try again later", "", "soft", "systemfull", "Temporary failure", false},
	{"bounce", "5.3.0", "", "", "255", "", "hard", "systemerror", "Temporary failure", false},
	{"bounce", "5.0.0", "", "", "pipe to |/usr/local/bin/filter generated by kijitora@example.com", "", "hard", "mailererror", "Temporary failure", false},
	{"bounce", "4.0.0", "450", "", "450 4.0.0 Temporary failure", "", "soft", "onhold", "Temporary failure", false},

	// ---- decoder's hint
	{"bounce", "5.0.0", "", "", "Recipient address rejected", "filtered", "hard", "filtered", "Spam or content", false},
	{"bounce", "4.4.3", "", "", "Unable to contact LDAP server. (#4.4.3) I'm not going to try again; this message has been in the queue too long.", "systemerror", "soft", "systemerror", "Temporary failure", false},
	// a hint below the code: an explicit code wins over a retry hint
	{"bounce", "5.2.2", "", "", "", "networkerror", "hard", "mailboxfull", "Mailbox full", false},

	// ---- nothing known
	{"bounce", "", "", "", "", "", "soft", "undefined", "Temporary failure", false},
	{"bounce", "5.0.0", "", "", "", "", "hard", "undefined", "Other", false},
	{"bounce", "5.0.0", "550", "", "550 Unrecognised nonsense", "", "hard", "onhold", "Temporary failure", false},

	// ---- delayed: label Delayed, no class
	{"delayed", "4.4.7", "", "", "", "", "", "expired", "Delayed", false},
	{"delayed", "4.0.0", "", "", "Delivery to the following recipient has been delayed", "", "", "expired", "Delayed", false},
	{"delayed", "4.2.2", "452", "", "452 4.2.2 Mailbox full", "", "", "mailboxfull", "Delayed", false},
}

func TestClassify(t *testing.T) {
	for _, c := range classifyCases {
		r := dsn.Result{Kind: c.kind, Status: c.status, ReplyCode: c.reply, Command: c.command, Diagnostic: c.diag, Hint: c.hint, DiagnosticType: "smtp"}
		got := Classify(r)
		want := Verdict{Class: c.class, Reason: c.reason, Label: c.label, AddressInvalid: c.invalid}
		if got != want {
			t.Errorf("Classify(%s %q %q %s %q hint=%q)\n got %+v\nwant %+v", c.kind, c.status, c.reply, c.command, c.diag, c.hint, got, want)
		}
	}
}

// TestEveryReasonCovered checks that the table above exercises every reason
// of the vocabulary, and every report label of classification.md.
func TestEveryReasonCovered(t *testing.T) {
	reasons := map[string]bool{}
	labels := map[string]bool{}
	for _, c := range classifyCases {
		reasons[c.reason] = true
		labels[c.label] = true
	}
	for _, r := range Reasons {
		if !reasons[r] {
			t.Errorf("no case for reason %q", r)
		}
	}
	for _, l := range Labels {
		if !labels[l] {
			t.Errorf("no case reaches label %q", l)
		}
	}
}

// TestLabels checks the label table of classification.md from the reason
// side: every reason has a label, in both classes, and every label but the
// kind-only ones is reached by some reason.
func TestLabels(t *testing.T) {
	reached := map[string]bool{}
	for _, r := range Reasons {
		for _, class := range []string{ClassSoft, ClassHard} {
			l := LabelFor(r, class)
			if l == "" && r != ReasonDelivered {
				t.Errorf("LabelFor(%q, %q) is empty", r, class)
			}
			reached[l] = true
		}
	}
	for _, l := range Labels {
		if l == LabelDelayed {
			continue // by kind, not by reason
		}
		if !reached[l] {
			t.Errorf("label %q is not reached by any reason", l)
		}
	}
	if got := LabelFor(ReasonUndefined, ClassSoft); got != LabelTemporary {
		t.Errorf("undefined soft: %q", got)
	}
	if got := LabelFor(ReasonUndefined, ClassHard); got != LabelOther {
		t.Errorf("undefined hard: %q", got)
	}
}

func TestAddressInvalid(t *testing.T) {
	for _, r := range Reasons {
		for _, permanent := range []bool{false, true} {
			want := r == ReasonUserUnknown || r == ReasonHostUnknown || r == ReasonHasMoved || r == ReasonNotAccept && permanent
			if got := AddressInvalid(r, permanent); got != want {
				t.Errorf("AddressInvalid(%q, %v) = %v", r, permanent, got)
			}
		}
	}
}

// TestPhraseTables checks the tables as data: every phrase is normalised
// (lower case, single spaces), long enough to index, unique, and names a
// reason of the vocabulary; and every phrase is found by the matcher in a
// text made of itself.
func TestPhraseTables(t *testing.T) {
	for name, table := range map[string][]phraseRule{"strong": strongPhraseTable, "weak": weakPhraseTable} {
		seen := map[string]bool{}
		m := newMatcher(table, reasonRank)
		for _, r := range table {
			if r.reason != reasonUserUnknownDefinite && r.reason != reasonHostUnknownDefinite && !isReason(r.reason) {
				t.Errorf("%s %q: unknown reason %q", name, r.phrase, r.reason)
			}
			if _, ok := reasonRank[r.reason]; !ok {
				t.Errorf("%s %q: reason %q has no rank", name, r.phrase, r.reason)
			}
			if seen[r.phrase] {
				t.Errorf("%s %q: duplicate", name, r.phrase)
			}
			seen[r.phrase] = true
			p := strings.TrimSpace(r.phrase)
			if p != strings.ToLower(p) || strings.Contains(p, "  ") {
				t.Errorf("%s %q: not normalised", name, r.phrase)
			}
			text := normalize("x "+strings.NewReplacer(" * ", " some gap ", " ~ ", " word ").Replace(p)+" x", make([]byte, 0, 256))
			found := false
			for _, mm := range m.find(text, nil) {
				if m.rules[mm.rule].phrase == r.phrase {
					found = true
				}
			}
			if !found {
				t.Errorf("%s %q: not found in its own text %q", name, r.phrase, text)
			}
		}
	}
}

func TestNormalize(t *testing.T) {
	cases := []struct{ in, want string }{
		{"550 5.1.1 <Kijitora@Example.JP>:  User\r\n\tUnknown", "550 5.1.1 <@>: user unknown"},
		{"550-5.7.1 Messages with multiple 550-5.7.1 addresses in From:", "550-5.7.1 messages with multiple addresses in from:"},
		{"552-5.2.2 The recipient's inbox 552 5.2.2 is full", "552-5.2.2 the recipient's inbox is full"},
		{"ПОЛЬЗОВАТЕЛЬ НЕ НАЙДЕН", "пользователь не найден"},
		{"filtered@example.com... User Unknown", "@... user unknown"},
	}
	for _, c := range cases {
		if got := string(normalize(c.in, nil)); got != c.want {
			t.Errorf("normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func BenchmarkClassify(b *testing.B) {
	rs := make([]dsn.Result, 0, len(classifyCases))
	for _, c := range classifyCases {
		rs = append(rs, dsn.Result{Kind: c.kind, Status: c.status, ReplyCode: c.reply, Command: c.command, Diagnostic: c.diag, Hint: c.hint})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Classify(rs[i%len(rs)])
	}
}

// TestMatcher checks the phrase conventions: word boundaries, " * " gaps,
// " ~ " one-word gaps, and that a phrase lying inside a longer match gives
// way to it whatever their ranks.
func TestMatcher(t *testing.T) {
	rules := []phraseRule{
		{ReasonRequirePTR, " ptr "},
		{ReasonMailboxFull, "mailbox * full"},
		{ReasonHostUnknown, "553 ~ does not exist"},
		{ReasonUserUnknown, "does not exist"},
		{ReasonRejected, "sender address * does not exist"},
	}
	m := newMatcher(rules, reasonRank)
	cases := []struct{ text, want string }{
		{"no ptr record", ReasonRequirePTR},
		{"(ptr)", ReasonRequirePTR},
		{"interrupted", ""},
		{"mailbox is currently full", ReasonMailboxFull},
		{"mailbox" + strings.Repeat(" x", 100) + " full", ""},
		{"553 example.com does not exist", ReasonHostUnknown},
		{"553 the user does not exist", ReasonUserUnknown},
		{"553 sender address @ does not exist", ReasonRejected},
	}
	for _, c := range cases {
		got := ""
		if i := m.best(m.find(normalize(c.text, nil), nil)); i >= 0 {
			got = m.rules[i].reason
		}
		if got != c.want {
			t.Errorf("%q: got %q, want %q", c.text, got, c.want)
		}
	}
}

// FuzzReasonOf checks that any evidence yields a reason of the vocabulary
// and a consistent verdict, without panicking.
func FuzzReasonOf(f *testing.F) {
	for _, c := range classifyCases {
		f.Add(c.status, c.reply, c.command, c.diag, c.hint)
	}
	f.Add("5.1.1", "550", "", "\xff\xfe<@@>@ ~ * 550-5.1.1 550- 550", "")
	f.Fuzz(func(t *testing.T, status, reply, command, diag, hint string) {
		r := ReasonOf(Evidence{Status: status, ReplyCode: reply, Command: command, Diagnostic: diag, Hint: hint})
		if !isReason(r) {
			t.Fatalf("reason %q is not in the vocabulary", r)
		}
		v := Classify(dsn.Result{Kind: dsn.KindBounce, Status: status, ReplyCode: reply, Command: command, Diagnostic: diag, Hint: hint})
		if v.Label == "" || v.Class == "" {
			t.Fatalf("verdict %+v lacks a label or class", v)
		}
		if v.AddressInvalid && v.Class != ClassHard && v.Reason == ReasonNotAccept {
			t.Fatalf("soft notaccept marked invalid: %+v", v)
		}
	})
}
