package classify

import "strings"

// codeRule is what a status or reply code says about the reason. Specific
// codes name the cause precisely (X.1.1 "bad destination mailbox") and are
// trusted over the decoder's Hint and over weak phrases; generic codes
// (X.7.1 "delivery not authorized", 550) name only a family and are used
// only when nothing else in the bounce says more. See Classify for the
// whole order.
type codeRule struct {
	reason   string
	specific bool
}

// statusRules maps the subject.detail part of an RFC 3463 enhanced status
// code (the class digit removed: "1.1" for 5.1.1 and 4.1.1) to a reason.
// Texts are from RFC 3463 §3 and the IANA "SMTP Enhanced Status Codes"
// registry (RFC 5248 and the RFCs it lists). Codes absent here ("0.0",
// "1.0", "3.0" for a temporary code, ...) say nothing about the cause.
var statusRules = map[string]codeRule{
	// X.1 addressing status (RFC 3463 §3.2)
	"1.1":  {ReasonUserUnknown, true},  // bad destination mailbox address
	"1.2":  {ReasonHostUnknown, true},  // bad destination system address
	"1.3":  {ReasonUserUnknown, true},  // bad destination mailbox address syntax
	"1.4":  {ReasonUserUnknown, false}, // destination mailbox address ambiguous
	"1.6":  {ReasonHasMoved, true},     // destination mailbox has moved, no forwarding address
	"1.7":  {ReasonRejected, true},     // bad sender's mailbox address syntax
	"1.8":  {ReasonRejected, true},     // bad sender's system address
	"1.9":  {ReasonSystemError, false}, // message relayed to non-compliant mailer
	"1.10": {ReasonNotAccept, true},    // recipient address has null MX (RFC 7505 §4.2)
	// X.2 mailbox status (RFC 3463 §3.3)
	"2.1": {ReasonSuspend, true},      // mailbox disabled, not accepting messages
	"2.2": {ReasonMailboxFull, true},  // mailbox full
	"2.3": {ReasonExceedLimit, true},  // message length exceeds administrative limit
	"2.0": {ReasonFiltered, false},    // other or undefined mailbox status: the mailbox exists, something about it refused
	"2.4": {ReasonSystemError, false}, // mailing list expansion problem
	// X.3 mail system status (RFC 3463 §3.4)
	"3.0": {ReasonSystemError, false}, // other or undefined mail system status (permanent only, see statusRule)
	"3.1": {ReasonSystemFull, true},   // mail system full
	"3.2": {ReasonNotAccept, false},   // system not accepting network messages
	"3.3": {ReasonSystemError, false}, // system not capable of selected features
	"3.4": {ReasonMesgTooBig, true},   // message too big for system
	"3.5": {ReasonSystemError, true},  // system incorrectly configured
	// X.4 network and routing status (RFC 3463 §3.5)
	"4.0": {ReasonNetworkError, false}, // other or undefined network or routing status
	"4.1": {ReasonNetworkError, true},  // no answer from host
	"4.2": {ReasonNetworkError, true},  // bad connection
	"4.3": {ReasonSystemError, true},   // directory server failure
	"4.4": {ReasonHostUnknown, false},  // unable to route (permanent: no such host)
	"4.5": {ReasonSystemFull, false},   // mail system congestion
	"4.6": {ReasonNetworkError, true},  // routing loop detected
	"4.7": {ReasonExpired, true},       // delivery time expired
	// X.5 mail delivery protocol status (RFC 3463 §3.6)
	"5.0": {ReasonSyntaxError, false}, // other or undefined protocol status
	"5.1": {ReasonSyntaxError, true},  // invalid command
	"5.2": {ReasonSyntaxError, true},  // syntax error
	"5.3": {ReasonTooManyConn, true},  // too many recipients: a per-transaction limit
	"5.4": {ReasonSyntaxError, true},  // invalid command arguments
	"5.5": {ReasonSyntaxError, true},  // wrong protocol version
	"5.6": {ReasonSyntaxError, true},  // authentication exchange line too long (RFC 4954)
	// X.6 message content or media status (RFC 3463 §3.7, RFC 6531)
	"6.0":  {ReasonContentError, false}, // other or undefined media error
	"6.1":  {ReasonContentError, true},  // media not supported
	"6.2":  {ReasonContentError, true},  // conversion required and prohibited
	"6.3":  {ReasonContentError, true},  // conversion required but not supported
	"6.4":  {ReasonContentError, true},  // conversion with loss performed
	"6.5":  {ReasonContentError, true},  // conversion failed
	"6.6":  {ReasonContentError, true},  // message content not available (RFC 4468)
	"6.7":  {ReasonContentError, true},  // non-ASCII addresses not permitted (RFC 6531)
	"6.8":  {ReasonContentError, true},  // UTF-8 string reply required (RFC 6531)
	"6.9":  {ReasonContentError, true},  // UTF-8 header message cannot be transferred (RFC 6531)
	"6.10": {ReasonContentError, true},  // duplicate of 6.8 in the registry
	// X.7 security or policy status (RFC 3463 §3.8, RFC 5248 registry)
	"7.0":  {ReasonSecurityError, false},  // other or undefined security status
	"7.1":  {ReasonSecurityError, false},  // delivery not authorized, message refused
	"7.2":  {ReasonPolicyViolation, true}, // mailing list expansion prohibited
	"7.3":  {ReasonSecurityError, true},   // security conversion required but not possible
	"7.4":  {ReasonSecurityError, true},   // security features not supported
	"7.5":  {ReasonSecurityError, true},   // cryptographic failure
	"7.6":  {ReasonSecurityError, true},   // cryptographic algorithm not supported
	"7.7":  {ReasonSecurityError, true},   // message integrity failure
	"7.8":  {ReasonSecurityError, true},   // authentication credentials invalid (RFC 4954)
	"7.9":  {ReasonSecurityError, true},   // authentication mechanism is too weak (RFC 4954)
	"7.10": {ReasonSecurityError, true},   // encryption needed (RFC 5248)
	"7.11": {ReasonSecurityError, true},   // encryption required for requested authentication mechanism (RFC 4954)
	"7.12": {ReasonSecurityError, true},   // a password transition is needed (RFC 4954)
	"7.13": {ReasonSuspend, false},        // user account disabled (RFC 5248)
	"7.14": {ReasonSecurityError, true},   // trust relationship required (RFC 5248)
	"7.15": {ReasonPolicyViolation, true}, // priority level is too low (RFC 6710)
	"7.16": {ReasonMesgTooBig, true},      // message is too big for the specified priority (RFC 6710)
	"7.17": {ReasonHasMoved, true},        // mailbox owner has changed (RFC 7293)
	"7.18": {ReasonHasMoved, true},        // domain owner has changed (RFC 7293)
	"7.19": {ReasonSecurityError, false},  // RRVS test cannot be completed (RFC 7293)
	"7.20": {ReasonAuthFailure, true},     // no passing DKIM signature found (RFC 7372)
	"7.21": {ReasonAuthFailure, true},     // no acceptable DKIM signature found (RFC 7372)
	"7.22": {ReasonAuthFailure, true},     // no valid author-matched DKIM signature found (RFC 7372)
	"7.23": {ReasonAuthFailure, true},     // SPF validation failed (RFC 7372)
	"7.24": {ReasonAuthFailure, true},     // SPF validation error (RFC 7372)
	"7.25": {ReasonRequirePTR, true},      // reverse DNS validation failed (RFC 7372)
	"7.26": {ReasonAuthFailure, true},     // multiple authentication checks failed (RFC 7372)
	"7.27": {ReasonRejected, true},        // sender address has null MX (RFC 7505 §4.2)
	"7.28": {ReasonSpamDetected, true},    // part of a mail flood of similar abusive messages
	"7.29": {ReasonAuthFailure, true},     // ARC validation failure (RFC 8617)
	"7.30": {ReasonFailedSTARTTLS, true},  // REQUIRETLS support required (RFC 8689)
}

// replyRules maps RFC 5321 §4.2 reply codes (and RFC 7504's 521/556, RFC
// 4954's 53x) to a reason. None of these is specific except 551 ("user not
// local", a forward path named) and 521/556 (no mail accepted at all).
var replyRules = map[string]codeRule{
	"454": {ReasonSecurityError, false},  // TLS not available / temporary authentication failure (RFC 3207, 4954)
	"500": {ReasonSyntaxError, false},    // syntax error, command unrecognized
	"501": {ReasonSyntaxError, false},    // syntax error in parameters or arguments
	"502": {ReasonSyntaxError, false},    // command not implemented
	"503": {ReasonSyntaxError, false},    // bad sequence of commands
	"504": {ReasonSyntaxError, false},    // command parameter not implemented
	"521": {ReasonNotAccept, true},       // host does not accept mail (RFC 7504)
	"530": {ReasonSecurityError, false},  // authentication required (RFC 4954)
	"534": {ReasonSecurityError, false},  // authentication mechanism is too weak (RFC 4954)
	"535": {ReasonSecurityError, false},  // authentication credentials invalid (RFC 4954)
	"523": {ReasonFailedSTARTTLS, false}, // encryption needed (RFC 5248)
	"524": {ReasonFailedSTARTTLS, false}, // encryption needed
	"525": {ReasonSuspend, true},         // user account disabled (RFC 5248)
	"538": {ReasonFailedSTARTTLS, false}, // encryption required for requested authentication mechanism (RFC 4954)
	"421": {ReasonSystemError, false},    // service not available, closing transmission channel
	"432": {ReasonSecurityError, false},  // a password transition is needed (RFC 4954)
	"452": {ReasonSystemFull, false},     // insufficient system storage
	"551": {ReasonHasMoved, true},        // user not local; please try <forward-path>
	"552": {ReasonMailboxFull, false},    // exceeded storage allocation
	"555": {ReasonSyntaxError, false},    // MAIL FROM/RCPT TO parameters not recognized
	"556": {ReasonNotAccept, true},       // domain does not accept mail (RFC 7504)
}

// statusRule returns the rule for an enhanced status code such as "5.1.1";
// ok is false when the code is malformed or says nothing about the cause.
func statusRule(status string) (codeRule, bool) {
	if len(status) < 5 || status[1] != '.' {
		return codeRule{}, false
	}
	r, ok := statusRules[status[2:]]
	if !ok {
		return microsoftStatus(status)
	}
	// A temporary 4.3.0 says only "try again": no cause.
	if status == "4.3.0" {
		return codeRule{}, false
	}
	if status[0] != '5' {
		switch status[2:] {
		case "4.4":
			// X.4.4 "unable to route" is a dead domain only when permanent;
			// a temporary 4.4.4 is a routing problem on the way.
			return codeRule{ReasonNetworkError, false}, true
		case "4.1":
			// A final report of 4.4.1 "no answer from host" means the
			// sender gave up after its retries.
			return codeRule{ReasonExpired, false}, true
		case "7.1":
			// A temporary 4.7.1 is a deferral of our host (greylisting,
			// a temporary block or rate limit), not a security failure.
			return codeRule{ReasonBlocked, false}, true
		}
	}
	return r, true
}

// codeClass returns the class digit of a status ("5.1.1") or reply ("550")
// code, or 0 when the code does not start with 2, 4 or 5.
func codeClass(code string) byte {
	code = strings.TrimSpace(code)
	if code == "" {
		return 0
	}
	switch c := code[0]; c {
	case '2', '4', '5':
		return c
	}
	return 0
}

// microsoftStatus reads the extended enhanced codes of Exchange Online and
// Microsoft 365 ("Email non-delivery reports and SMTP errors in Exchange
// Online"), whose detail numbers lie outside the IANA registry: 4.4.312
// DNS query failed, 4.4.316 connection refused after retries, 4.7.500-699
// and 4.7.850-899 sending IP restricted, 5.7.606-649 banned sending IP,
// 5.7.700-749 tenant over its sending threshold, 5.7.509 DMARC failure,
// 5.7.57 unauthenticated client submission, 5.6.11 bare line feeds, 5.0.350
// generic content refusal. None is specific: the reply text, when it says
// more, decides.
func microsoftStatus(status string) (codeRule, bool) {
	cls, subj, detail, ok := splitCode(status)
	if !ok {
		return codeRule{}, false
	}
	reason := ""
	switch subj {
	case 0:
		if detail == 350 {
			reason = ReasonContentError
		}
	case 4:
		switch detail {
		case 312:
			reason = ReasonNetworkError
		case 316:
			reason = ReasonExpired
		}
	case 6:
		if detail == 11 {
			reason = ReasonContentError
		}
	case 7:
		switch {
		case detail == 57:
			reason = ReasonSecurityError
		case detail == 509:
			reason = ReasonAuthFailure
		case detail >= 500 && detail <= 699 && (cls == '4' || detail >= 606):
			reason = ReasonBlocked
		case detail >= 700 && detail <= 749:
			reason = ReasonSpeeding
		case detail >= 850 && detail <= 899:
			reason = ReasonBlocked
		}
	}
	if reason == "" {
		return codeRule{}, false
	}
	return codeRule{reason, false}, true
}

// splitCode splits an enhanced status code "5.7.606" into its class byte
// and its subject and detail numbers; ok is false when it is malformed.
func splitCode(status string) (cls byte, subj, detail int, ok bool) {
	if len(status) < 5 || status[1] != '.' {
		return 0, 0, 0, false
	}
	cls = status[0]
	i := 2
	for ; i < len(status) && status[i] >= '0' && status[i] <= '9'; i++ {
		subj = subj*10 + int(status[i]-'0')
	}
	if i == 2 || i >= len(status) || status[i] != '.' || i > 5 {
		return 0, 0, 0, false
	}
	j := i + 1
	for i = j; i < len(status) && status[i] >= '0' && status[i] <= '9'; i++ {
		detail = detail*10 + int(status[i]-'0')
	}
	if i == j || i != len(status) || i-j > 3 {
		return 0, 0, 0, false
	}
	return cls, subj, detail, true
}
