package classify

// Reasons are the bounce reason vocabulary of ../shared/docs/classification.md
// (the open de-facto standard names used by Sisimai; the definitions are
// Rebound's).
const (
	ReasonUserUnknown     = "userunknown"     // mailbox does not exist at that domain
	ReasonHostUnknown     = "hostunknown"     // recipient domain does not exist or has no mail host
	ReasonHasMoved        = "hasmoved"        // the recipient has moved; a new address is named
	ReasonNotAccept       = "notaccept"       // the domain accepts no mail at all (null MX, RFC 7505)
	ReasonSuspend         = "suspend"         // mailbox exists but is disabled, inactive or suspended
	ReasonMailboxFull     = "mailboxfull"     // mailbox over quota
	ReasonMesgTooBig      = "mesgtoobig"      // message larger than the recipient accepts
	ReasonExceedLimit     = "exceedlimit"     // message exceeds a size or count limit of the recipient
	ReasonFiltered        = "filtered"        // refused by a recipient-side rule
	ReasonRejected        = "rejected"        // the sender address or domain was refused
	ReasonBlocked         = "blocked"         // the sending IP or host is blocklisted or refused
	ReasonBadReputation   = "badreputation"   // refused for low sender reputation
	ReasonRequirePTR      = "requireptr"      // sending IP has no (matching) reverse DNS
	ReasonAuthFailure     = "authfailure"     // SPF, DKIM or DMARC failed
	ReasonPolicyViolation = "policyviolation" // refused under a receiving-site policy
	ReasonSpamDetected    = "spamdetected"    // message judged to be spam
	ReasonVirusDetected   = "virusdetected"   // message carries malware
	ReasonContentError    = "contenterror"    // message content or headers refused
	ReasonSecurityError   = "securityerror"   // a security requirement failed (TLS, authentication)
	ReasonFailedSTARTTLS  = "failedstarttls"  // STARTTLS could not be negotiated
	ReasonNotCompliantRFC = "notcompliantrfc" // message breaks the RFC (e.g. duplicate headers)
	ReasonSyntaxError     = "syntaxerror"     // SMTP command syntax error
	ReasonNoRelaying      = "norelaying"      // relaying denied
	ReasonTooManyConn     = "toomanyconn"     // too many connections or transactions
	ReasonSpeeding        = "speeding"        // sending too fast (rate limited)
	ReasonSystemError     = "systemerror"     // error on the receiving system
	ReasonSystemFull      = "systemfull"      // receiving system's disk or queue is full
	ReasonNetworkError    = "networkerror"    // DNS lookup or connection problem on the way
	ReasonExpired         = "expired"         // the sending MTA gave up after its queue lifetime
	ReasonMailerError     = "mailererror"     // the local delivery program failed
	ReasonOnHold          = "onhold"          // a decision was deferred; not enough information yet
	ReasonUndefined       = "undefined"       // a bounce whose cause cannot be told
	ReasonVacation        = "vacation"        // auto-reply (kind auto_reply)
	ReasonFeedback        = "feedback"        // ARF complaint report (kind complaint)
	ReasonDelivered       = "delivered"       // success notification (kind delivered)
)

// Classes of a bounce (classification.md, "class"): what the receiving
// server said about this delivery.
const (
	ClassSoft = "soft" // temporary: enhanced code 4.x.x or reply code 4xx
	ClassHard = "hard" // permanent: enhanced code 5.x.x or reply code 5xx
)

// Labels are the report groups of classification.md ("Report labels"), named
// as users read them in campaign Reports.
const (
	LabelInvalidRecipient = "Invalid recipient"
	LabelDomainNotFound   = "Domain not found"
	LabelMailboxDisabled  = "Mailbox disabled"
	LabelMailboxFull      = "Mailbox full"
	LabelMessageTooLarge  = "Message too large"
	LabelBlocked          = "Blocked"
	LabelSpamOrContent    = "Spam or content"
	LabelPolicyOrAuth     = "Policy or authentication"
	LabelRateLimited      = "Rate limited"
	LabelTemporary        = "Temporary failure"
	LabelExpired          = "Delivery expired"
	LabelOther            = "Other"
	LabelDelayed          = "Delayed"
	LabelAutoReply        = "Auto-reply"
	LabelComplaint        = "Complaint"
)

// Reasons lists the whole reason vocabulary in the order of
// classification.md.
var Reasons = []string{
	ReasonUserUnknown, ReasonHostUnknown, ReasonHasMoved, ReasonNotAccept,
	ReasonSuspend, ReasonMailboxFull, ReasonMesgTooBig, ReasonExceedLimit,
	ReasonFiltered, ReasonRejected, ReasonBlocked, ReasonBadReputation,
	ReasonRequirePTR, ReasonAuthFailure, ReasonPolicyViolation,
	ReasonSpamDetected, ReasonVirusDetected, ReasonContentError,
	ReasonSecurityError, ReasonFailedSTARTTLS, ReasonNotCompliantRFC,
	ReasonSyntaxError, ReasonNoRelaying, ReasonTooManyConn, ReasonSpeeding,
	ReasonSystemError, ReasonSystemFull, ReasonNetworkError, ReasonExpired,
	ReasonMailerError, ReasonOnHold, ReasonUndefined, ReasonVacation,
	ReasonFeedback, ReasonDelivered,
}

// Labels lists every report label of classification.md.
var Labels = []string{
	LabelInvalidRecipient, LabelDomainNotFound, LabelMailboxDisabled,
	LabelMailboxFull, LabelMessageTooLarge, LabelBlocked, LabelSpamOrContent,
	LabelPolicyOrAuth, LabelRateLimited, LabelTemporary, LabelExpired,
	LabelOther, LabelDelayed, LabelAutoReply, LabelComplaint,
}

// reasonLabel is the "Report labels" table of classification.md, read from
// the reason side. ReasonUndefined is absent: its label depends on the class
// (see LabelFor).
var reasonLabel = map[string]string{
	ReasonUserUnknown:     LabelInvalidRecipient,
	ReasonHasMoved:        LabelInvalidRecipient,
	ReasonNotAccept:       LabelInvalidRecipient,
	ReasonHostUnknown:     LabelDomainNotFound,
	ReasonSuspend:         LabelMailboxDisabled,
	ReasonMailboxFull:     LabelMailboxFull,
	ReasonMesgTooBig:      LabelMessageTooLarge,
	ReasonExceedLimit:     LabelMessageTooLarge,
	ReasonBlocked:         LabelBlocked,
	ReasonBadReputation:   LabelBlocked,
	ReasonRequirePTR:      LabelBlocked,
	ReasonRejected:        LabelBlocked,
	ReasonNoRelaying:      LabelBlocked,
	ReasonSpamDetected:    LabelSpamOrContent,
	ReasonVirusDetected:   LabelSpamOrContent,
	ReasonContentError:    LabelSpamOrContent,
	ReasonFiltered:        LabelSpamOrContent,
	ReasonPolicyViolation: LabelPolicyOrAuth,
	ReasonAuthFailure:     LabelPolicyOrAuth,
	ReasonSecurityError:   LabelPolicyOrAuth,
	ReasonFailedSTARTTLS:  LabelPolicyOrAuth,
	ReasonNotCompliantRFC: LabelPolicyOrAuth,
	ReasonSyntaxError:     LabelPolicyOrAuth,
	ReasonTooManyConn:     LabelRateLimited,
	ReasonSpeeding:        LabelRateLimited,
	ReasonSystemError:     LabelTemporary,
	ReasonSystemFull:      LabelTemporary,
	ReasonNetworkError:    LabelTemporary,
	ReasonMailerError:     LabelTemporary,
	ReasonOnHold:          LabelTemporary,
	ReasonExpired:         LabelExpired,
	ReasonVacation:        LabelAutoReply,
	ReasonFeedback:        LabelComplaint,
}

// LabelFor returns the report label of a bounce with the given reason and
// class, per classification.md: an undefined reason is "Temporary failure"
// when the bounce is soft and "Other" otherwise. ReasonDelivered has no label
// (delivered results are only logged) and yields "".
func LabelFor(reason, class string) string {
	if reason == ReasonUndefined || reason == "" {
		if class == ClassSoft {
			return LabelTemporary
		}
		return LabelOther
	}
	return reasonLabel[reason]
}

// AddressInvalid reports whether a reason says the address itself is dead
// (classification.md, "address_invalid"): userunknown, hostunknown and
// hasmoved always; notaccept only when permanent is true, that is when the
// bounce carries a 5.x.x enhanced code or a 5xx reply code (RFC 7505 null MX
// answers 556/5.1.10 permanently; a 4xx "not accepting" may pass).
func AddressInvalid(reason string, permanent bool) bool {
	switch reason {
	case ReasonUserUnknown, ReasonHostUnknown, ReasonHasMoved:
		return true
	case ReasonNotAccept:
		return permanent
	}
	return false
}
