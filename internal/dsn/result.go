// Package dsn decodes bounce messages (delivery status notifications) into one
// Result per recipient. It is part of Rebound's pure core: it imports no
// database, network, HTTP or queue package.
//
// The shapes it reads are RFC 6522 multipart/report messages carrying an RFC
// 3464 message/delivery-status (or RFC 6533 message/global-delivery-status)
// part, RFC 5965 ARF feedback reports, RFC 3834 auto-replies and the many
// free-text formats written by MTAs that predate or ignore RFC 3464.
package dsn

import "time"

// Kind says what a decoded message is. Values follow
// ../shared/docs/classification.md.
type Kind string

// The kinds a Result can carry.
const (
	KindBounce    Kind = "bounce"     // permanent or temporary failure (Action: failed)
	KindDelayed   Kind = "delayed"    // Action: delayed (RFC 3464 §2.3.3)
	KindDelivered Kind = "delivered"  // Action: delivered, relayed or expanded
	KindAutoReply Kind = "auto_reply" // RFC 3834 auto-reply or vacation message
	KindComplaint Kind = "complaint"  // RFC 5965 ARF feedback report
	KindNotBounce Kind = "not_bounce" // ordinary mail
)

// Provider names the operator of the receiving side of a delivery.
type Provider string

// The providers Rebound tells apart; anything else is ProviderOther.
const (
	ProviderGoogle    Provider = "google"
	ProviderMicrosoft Provider = "microsoft"
	ProviderYahoo     Provider = "yahoo"
	ProviderApple     Provider = "apple"
	ProviderOther     Provider = "other"
)

// Original holds what a bounce tells of the message that failed: the
// returned message/rfc822, text/rfc822-headers or message/global-headers part,
// or an original quoted in the body.
type Original struct {
	MessageID string // without angle brackets; "" when unknown
	From      string
	To        string
	Subject   string // decoded (RFC 2047)
	Date      string
	// XHeaders holds every X- header of the original, keyed by canonical
	// MIME header name (e.g. "X-Rebound-Campaign"); campaign and lead
	// identifiers travel there.
	XHeaders map[string]string
}

// Result is one recipient's outcome decoded from one message. Fields that
// the message does not carry are left zero.
type Result struct {
	Kind Kind

	// Recipient is the failed recipient address, lower-cased domain, no
	// angle brackets (Final-Recipient, RFC 3464 §2.3.2, or its equivalent in a
	// text bounce).
	Recipient         string
	OriginalRecipient string // Original-Recipient, RFC 3464 §2.3.1

	// Action is RFC 3464 §2.3.3, lower case ("failed", "delayed", ...).
	// A "failed" action with a 4.x.x status means the sending MTA gave up
	// after retrying for its queue lifetime (reason expired), whatever the
	// last temporary error was. Text formats set "failed" for their final
	// failures and "delayed" for warnings.
	Action string
	// Status is the RFC 3463 enhanced status code ("5.1.1"), "" when none.
	Status string
	// ReplyCode is the RFC 5321 reply code ("550"), "" when none.
	ReplyCode string

	Diagnostic string // Diagnostic-Code text (unfolded) or the text bounce's error line(s)
	// Command is the SMTP command the remote server answered with the
	// error: "CONN" (greeting), "HELO", "EHLO", "MAIL", "RCPT", "DATA" (the
	// reply to the message content), "STARTTLS", or "" when the message
	// does not say. Read from "(in reply to RCPT TO command)", "after end of
	// data", a ">>> DATA" transcript line and the like. A "user unknown"
	// answered to DATA is a content filter's wording (reason filtered); a
	// refusal answered to MAIL concerns the sender (reason rejected).
	Command        string
	DiagnosticType string // "smtp", "x-unix", ... (RFC 3464 §2.3.6)
	RemoteMTA      string // Remote-MTA host (RFC 3464 §2.3.5), or the host named in the text
	ReportingMTA   string // Reporting-MTA (RFC 3464 §2.2.2)
	ReceivedFrom   string // Received-From-MTA (RFC 3464 §2.2.4)

	ArrivalDate     time.Time // Arrival-Date (RFC 3464 §2.2.5)
	LastAttemptDate time.Time // Last-Attempt-Date (RFC 3464 §2.3.7)
	WillRetryUntil  time.Time // Will-Retry-Until (RFC 3464 §2.3.8)

	// FeedbackType is the ARF Feedback-Type (RFC 5965 §3.5) for complaints.
	FeedbackType string

	// Provider of the receiving side, from Remote-MTA, hosts in the diagnostic
	// and the recipient domain.
	Provider Provider

	// Format names the recogniser that decoded the message ("rfc3464",
	// "arf", "postfix", "qmail", ...), for diagnostics and tests.
	Format string

	// Hint is a reason the format itself states without a status code (for
	// example a qmail or Japanese-carrier message that maps a fixed sentence
	// to a reason); classify uses it when text and code say nothing better.
	Hint string

	Original Original
}
