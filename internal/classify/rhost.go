package classify

import (
	"strings"
)

// Provider-specific reply codes and wordings. Some receiving systems answer
// with texts or codes whose meaning is their own: Orange and La Poste put a
// reference such as "LPN007_426" or "OFR_416" in every refusal, NTT docomo
// answers "550 Unknown user" both to RCPT TO and after DATA (where it is a
// sender-side refusal), and Symantec Email Security.cloud (MessageLabs) has
// a small set of documented replies. These tables are checked before any
// generic rule: where the provider is known, its own meaning wins.

// hostRule is what one receiving system's replies mean. The system is
// recognised when the Remote-MTA or the Reporting-MTA ends with one of
// hosts (a "." boundary before the suffix, or the whole name).
type hostRule struct {
	name  string
	hosts []string
	// status maps an exact enhanced status code to a reason.
	status map[string]string
	// phrases are the provider's documented replies (lower case, the
	// phrase conventions of match.go).
	phrases []phraseRule
	// command maps the refused SMTP command to a reason, used when the
	// status code is generic (X.0.0 or none) and no phrase answered.
	command map[string]string

	m *matcher
}

// hostRules lists the systems with their own meanings.
//
// NTT docomo (mfsmax.docomo.ne.jp): "550 Unknown user" answered to RCPT TO
// is a dead mailbox; the same words after DATA mean that the recipient's
// settings refuse the sender (domain or address filtering), so the sender is
// refused; a 5.2.0 status is the recipient's filter; "552 too much mail
// data" is its full-mailbox reply.
//
// Symantec Email Security.cloud (messagelabs.com): replies as documented in
// Broadcom's knowledge base "Email error and bounce codes for Email
// Security.cloud".
var hostRules = []*hostRule{
	{
		name:  "docomo",
		hosts: []string{"docomo.ne.jp"},
		status: map[string]string{
			"5.1.1": ReasonUserUnknown,
			"5.2.0": ReasonFiltered,
		},
		phrases: []phraseRule{
			{ReasonMailboxFull, "552 too much mail data"},
			{ReasonTooManyConn, "552 too many recipients"},
			{ReasonSyntaxError, "503 bad sequence of commands"},
			{ReasonSyntaxError, "504 command parameter not implemented"},
		},
		command: map[string]string{
			"RCPT": ReasonUserUnknown,
			"DATA": ReasonRejected,
		},
	},
	{
		name:  "messagelabs",
		hosts: []string{"messagelabs.com"},
		phrases: []phraseRule{
			{ReasonAuthFailure, "domain authentication fail"},
			{ReasonBadReputation, "connection rejected by policy"},
			{ReasonBlocked, "mail rejected because your ip is in the pbl"},
			{ReasonBlocked, "your ip address has been blocked"},
			{ReasonBlocked, "your ip address * has been blocked"},
			{ReasonContentError, "stray linefeeds in message"},
			{ReasonFailedSTARTTLS, "tls/sslv3 connection required"},
			{ReasonNoRelaying, " as a relay, "},
			{ReasonNotCompliantRFC, "has detected that this message is not rfc 5322"},
			{ReasonRejected, "sender envelope domain not allowed for sender ip address"},
			{ReasonRejected, "your domain has been blocked"},
			{ReasonRejected, "your email address has been blocked"},
			{ReasonRejected, "your envelope sender is in my badmailfrom list"},
			{ReasonRejected, "has been blacklisted"},
			{ReasonSpamDetected, "message filtered"},
			{ReasonSpamDetected, "filtered by outbound scanning"},
			{ReasonTooManyConn, "too many recipients received this hour"},
			{ReasonTooManyConn, "too many messages"},
			{ReasonUserUnknown, "no such user"},
			{ReasonUserUnknown, "invalid recipient"},
			{ReasonUserUnknown, "mailbox is not allowed"},
		},
	},
}

func init() {
	for _, h := range hostRules {
		h.m = newMatcher(h.phrases, reasonRank)
	}
}

// hostIs reports whether host (any case, a trailing dot allowed) is
// suffix or ends with "."+suffix.
func hostIs(host, suffix string) bool {
	host = strings.TrimSuffix(strings.TrimSpace(host), ".")
	if len(host) < len(suffix) || !strings.EqualFold(host[len(host)-len(suffix):], suffix) {
		return false
	}
	return len(host) == len(suffix) || host[len(host)-len(suffix)-1] == '.'
}

// hostRuleFor returns the rule of the receiving system named by the
// Remote-MTA or Reporting-MTA, or nil.
func hostRuleFor(remote, reporting string) *hostRule {
	if remote == "" && reporting == "" {
		return nil
	}
	for _, h := range hostRules {
		for _, s := range h.hosts {
			if hostIs(remote, s) || hostIs(reporting, s) {
				return h
			}
		}
	}
	return nil
}

// reason returns the provider's reason for a normalised text, "" when its
// tables say nothing.
func (h *hostRule) reason(text []byte, status string, commandOf func() string) string {
	if r, ok := h.status[status]; ok {
		return r
	}
	var ms [8]match
	if i := h.m.best(h.m.find(text, ms[:0])); i >= 0 {
		return h.m.rules[i].reason
	}
	if len(h.command) > 0 && (status == "" || strings.HasSuffix(status, ".0.0")) {
		return h.command[commandOf()]
	}
	return ""
}

// orangeReasons maps the three-digit reference that Orange (orange.fr,
// wanadoo.fr) and La Poste (laposte.net) append to their replies ("OFR_416",
// "OFR005_505", "LPN007_426", "LPNAAA_101", "OUK_513") to its documented
// meaning. References meaning only "try again later" are absent.
var orangeReasons = map[string]string{
	"101": ReasonBlocked,         // blocked by our services (blocklist)
	"102": ReasonBlocked,         // source IP blocked for spam incidents
	"103": ReasonBlocked,         // service refused
	"104": ReasonTooManyConn,     // too many connections, slow down
	"305": ReasonSecurityError,   // invalid authentication code
	"401": ReasonBlocked,         // SPF: not allowed to send mail
	"402": ReasonSecurityError,   // authentication required
	"403": ReasonRejected,        // invalid sender
	"405": ReasonRejected,        // invalid sender
	"415": ReasonRejected,        // invalid sender
	"416": ReasonUserUnknown,     // invalid recipient
	"417": ReasonMailboxFull,     // recipient over quota
	"418": ReasonUserUnknown,     // invalid recipient
	"420": ReasonSuspend,         // archived recipient
	"421": ReasonRejected,        // mail from not owned by user
	"426": ReasonSuspend,         // recipient account blocked
	"505": ReasonSystemError,     // service refused, try later (at end of DATA)
	"506": ReasonSpamDetected,    // mail rejected
	"510": ReasonBlocked,         // service refused
	"514": ReasonMesgTooBig,      // message size limit reached
	"517": ReasonPolicyViolation, // DMARC verification failed
	"630": ReasonPolicyViolation, // client host rejected
	"999": ReasonBlocked,         // service refused
}

// orangeReason finds an Orange / La Poste reference in a normalised
// (lower-case) text and returns its reason, or "".
func orangeReason(text []byte) string {
	s := string(text) // no copy: the conversion does not escape
	for _, p := range [...]string{"lpn", "ofr", "ouk"} {
		for off := 0; off < len(s); {
			i := strings.Index(s[off:], p)
			if i < 0 {
				break
			}
			i += off
			off = i + len(p)
			if i > 0 && isWordByte(s[i-1]) {
				continue
			}
			if code, ok := orangeRef(s[i+len(p):]); ok {
				if r, ok := orangeReasons[code]; ok {
					return r
				}
				return ""
			}
		}
	}
	return ""
}

// orangeRef reads what follows "LPN"/"OFR"/"OUK": "_ddd", "ddd_ddd",
// "ddd-ddd" or "aaa_ddd", and returns the final three digits.
func orangeRef(s string) (string, bool) {
	if strings.HasPrefix(s, "aaa") {
		s = s[3:]
	} else if len(s) >= 3 && isDigits(s[:3]) {
		s = s[3:]
		if s == "" || (s[0] != '_' && s[0] != '-') {
			return "", false
		}
	}
	if len(s) < 4 || s[0] != '_' && s[0] != '-' || !isDigits(s[1:4]) {
		return "", false
	}
	if len(s) > 4 && isWordByte(s[4]) {
		return "", false
	}
	return s[1:4], true
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
