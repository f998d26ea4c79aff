package classify

// phraseRule ties a phrase of diagnostic text to a reason. Phrases are
// written lower case with single spaces; see matcher for the " * " gap and
// the word-boundary spaces.
type phraseRule struct {
	reason string
	phrase string
}

// reasonRank is the precedence of reasons when several strong phrases match
// one diagnostic (lower wins). The order follows how specific each cause
// is and what the sender should learn from it:
//
//   - rate and connection limits, blocklists, reputation, reverse DNS,
//     authentication, TLS and malware first: a receiving server that names
//     one of these often phrases it as a recipient error ("550 5.1.1 ...
//     rate limited", "550 5.7.1 ... blocked using Spamhaus");
//   - then the message's fate (expired) and the recipient's state
//     (moved, unknown, host unknown, no mail accepted, disabled, full, size);
//   - then sender, policy and content refusals;
//   - then faults on the way (system, network, mailer) and deferrals.
var reasonRank = func() map[string]int {
	order := []string{
		ReasonSpeeding, ReasonTooManyConn, ReasonBlocked, ReasonBadReputation,
		ReasonRequirePTR, ReasonAuthFailure, ReasonFailedSTARTTLS,
		ReasonVirusDetected, ReasonSpamDetected, ReasonNoRelaying,
		ReasonExpired,
		ReasonHasMoved, ReasonUserUnknown, ReasonHostUnknown, ReasonNotAccept,
		ReasonSuspend, ReasonMailboxFull, ReasonMesgTooBig, ReasonExceedLimit,
		ReasonSystemFull,
		ReasonRejected, ReasonFiltered, ReasonNotCompliantRFC,
		ReasonContentError, ReasonPolicyViolation, ReasonSecurityError,
		ReasonSyntaxError,
		ReasonMailerError, ReasonNetworkError, ReasonSystemError, ReasonOnHold,
		ReasonVacation, ReasonFeedback, ReasonDelivered, ReasonUndefined,
	}
	m := make(map[string]int, len(order))
	for i, r := range order {
		m[r] = i
	}
	return m
}()

var (
	strongPhrases = newMatcher(strongPhraseTable, reasonRank)
	weakPhrases   = newMatcher(weakPhraseTable, reasonRank)
)

// strongPhraseTable lists phrases that name a cause precisely. They decide
// the reason over any status code.
var strongPhraseTable = []phraseRule{
	// speeding
	{ReasonSpeeding, "rate limit"},
	{ReasonSpeeding, "rate-limit"},
	{ReasonSpeeding, "ratelimit"},
	{ReasonSpeeding, "receiving mail at a rate that"},
	{ReasonSpeeding, "too many messages"},
	{ReasonSpeeding, "sending too fast"},
	{ReasonSpeeding, "temporarily deferred due to unexpected volume"},
	// toomanyconn
	{ReasonTooManyConn, "too many connections"},
	{ReasonTooManyConn, "too many concurrent"},
	{ReasonTooManyConn, "too many simultaneous"},
	{ReasonTooManyConn, "connection limit"},
	// blocked
	{ReasonBlocked, "spamhaus"},
	{ReasonBlocked, "blocked using"},
	{ReasonBlocked, "listed in"},
	{ReasonBlocked, "blacklist"},
	{ReasonBlocked, "blocklist"},
	{ReasonBlocked, " rbl "},
	{ReasonBlocked, " dnsbl"},
	{ReasonBlocked, "spamcop"},
	{ReasonBlocked, "barracudacentral"},
	{ReasonBlocked, "client host rejected"},
	{ReasonBlocked, "ip address is blocked"},
	{ReasonBlocked, "access denied. ip name lookup failed"},
	// badreputation
	{ReasonBadReputation, "reputation"},
	// requireptr
	{ReasonRequirePTR, "reverse dns"},
	{ReasonRequirePTR, "reverse lookup"},
	{ReasonRequirePTR, " ptr "},
	{ReasonRequirePTR, "cannot find your hostname"},
	{ReasonRequirePTR, "cannot resolve your hostname"},
	// authfailure
	{ReasonAuthFailure, " spf "},
	{ReasonAuthFailure, " dkim"},
	{ReasonAuthFailure, " dmarc"},
	{ReasonAuthFailure, "sender policy framework"},
	// failedstarttls
	{ReasonFailedSTARTTLS, "starttls"},
	// virusdetected
	{ReasonVirusDetected, "virus"},
	{ReasonVirusDetected, "malware"},
	// spamdetected
	{ReasonSpamDetected, "spam"},
	{ReasonSpamDetected, "unsolicited"},
	// norelaying
	{ReasonNoRelaying, "relay access denied"},
	{ReasonNoRelaying, "relaying denied"},
	{ReasonNoRelaying, "relay not permitted"},
	{ReasonNoRelaying, "we do not relay"},
	// expired
	{ReasonExpired, "message expired"},
	{ReasonExpired, "retry timeout exceeded"},
	{ReasonExpired, "could not be delivered for"},
	{ReasonExpired, "delivery time expired"},
	{ReasonExpired, "too long in queue"},
	// hasmoved
	{ReasonHasMoved, "has moved"},
	{ReasonHasMoved, "user not local; please try"},
	// userunknown
	{ReasonUserUnknown, "user unknown"},
	{ReasonUserUnknown, "unknown user"},
	{ReasonUserUnknown, "no such user"},
	{ReasonUserUnknown, "does not exist"},
	{ReasonUserUnknown, "mailbox unavailable"},
	{ReasonUserUnknown, "mailbox not found"},
	{ReasonUserUnknown, "recipient unknown"},
	{ReasonUserUnknown, "unknown recipient"},
	{ReasonUserUnknown, "invalid recipient"},
	{ReasonUserUnknown, "no mailbox here"},
	{ReasonUserUnknown, "recipient address rejected: access denied"},
	// hostunknown
	{ReasonHostUnknown, "host or domain name not found"},
	{ReasonHostUnknown, "name service error"},
	{ReasonHostUnknown, "no mx "},
	{ReasonHostUnknown, "domain not found"},
	{ReasonHostUnknown, "unrouteable address"},
	// notaccept
	{ReasonNotAccept, "does not accept mail"},
	{ReasonNotAccept, "null mx"},
	// suspend
	{ReasonSuspend, "account disabled"},
	{ReasonSuspend, "account is disabled"},
	{ReasonSuspend, "suspended"},
	{ReasonSuspend, "inactive"},
	// mailboxfull
	{ReasonMailboxFull, "mailbox full"},
	{ReasonMailboxFull, "mailbox is full"},
	{ReasonMailboxFull, "over quota"},
	{ReasonMailboxFull, "quota exceeded"},
	{ReasonMailboxFull, "exceeded storage"},
	// mesgtoobig
	{ReasonMesgTooBig, "message too large"},
	{ReasonMesgTooBig, "message size exceeds"},
	{ReasonMesgTooBig, "message too big"},
	// systemfull
	{ReasonSystemFull, "insufficient system storage"},
	// rejected
	{ReasonRejected, "sender address rejected"},
	{ReasonRejected, "not allowed to send"},
	{ReasonRejected, "domain of sender address"},
	// securityerror
	{ReasonSecurityError, "authentication required"},
	// networkerror
	{ReasonNetworkError, "connection timed out"},
	{ReasonNetworkError, "connection refused"},
	// systemerror
	{ReasonSystemError, "local error"},
}

// weakPhraseTable lists generic words that name a family of causes. They
// decide only where no strong phrase, specific code or hint does.
var weakPhraseTable = []phraseRule{
	{ReasonBlocked, "blocked"},
	{ReasonRejected, "rejected"},
	{ReasonRejected, "denied"},
	{ReasonPolicyViolation, "policy"},
}
