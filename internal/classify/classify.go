package classify

import (
	"strings"

	"github.com/rebound-hq/rebound/internal/dsn"
)

// Classify returns the Verdict for one decoded result, following
// ../shared/docs/classification.md.
//
// Kinds other than bounce and delayed have fixed answers: auto_reply is
// vacation / "Auto-reply", complaint is feedback / "Complaint", delivered is
// delivered with no label (delivered results are only logged), not_bounce
// has no reason and no label. None of them has a class or an invalid
// address. A result with an empty Kind is read as a bounce.
//
// For bounce and delayed results the reason comes from ReasonOf (see there
// for the order of evidence). Class (bounce only) is the first digit of the
// enhanced status code, else of the reply code (4 soft, 5 hard), else hard
// only where the address is invalid. The label follows the reason (and the
// class, for undefined); a delayed result is labelled "Delayed" whatever its
// reason. AddressInvalid follows the reason (see AddressInvalid).
//
// Classify is safe for concurrent use: its tables are built once at package
// initialisation and only read afterwards.
func Classify(r dsn.Result) Verdict {
	switch r.Kind {
	case dsn.KindAutoReply:
		return Verdict{Reason: ReasonVacation, Label: LabelAutoReply}
	case dsn.KindComplaint:
		return Verdict{Reason: ReasonFeedback, Label: LabelComplaint}
	case dsn.KindDelivered:
		return Verdict{Reason: ReasonDelivered}
	case dsn.KindNotBounce:
		return Verdict{}
	}

	reason := ReasonOf(Evidence{
		Kind:           r.Kind,
		Status:         r.Status,
		ReplyCode:      r.ReplyCode,
		Diagnostic:     r.Diagnostic,
		DiagnosticType: r.DiagnosticType,
		Hint:           r.Hint,
		Command:        r.Command,
		Action:         r.Action,
		RemoteMTA:      r.RemoteMTA,
		ReportingMTA:   r.ReportingMTA,
		Recipient:      r.Recipient,
	})

	digit := codeClass(r.Status)
	if digit != '4' && digit != '5' {
		digit = codeClass(r.ReplyCode)
	}
	invalid := AddressInvalid(reason, digit == '5')

	if r.Kind == dsn.KindDelayed {
		return Verdict{Reason: reason, Label: LabelDelayed}
	}
	class := ClassSoft
	if digit == '5' || digit != '4' && invalid {
		class = ClassHard
	}
	return Verdict{
		Class:          class,
		Reason:         reason,
		Label:          LabelFor(reason, class),
		AddressInvalid: invalid,
	}
}

// Evidence is what a failed or delayed delivery tells about its cause: the
// fields of dsn.Result that Classify reads.
type Evidence struct {
	Kind           dsn.Kind
	Status         string // RFC 3463 enhanced status code ("5.1.1"), or ""
	ReplyCode      string // RFC 5321 reply code ("550"), or ""
	Diagnostic     string // the remote server's reply or the bounce's error text
	DiagnosticType string // RFC 3464 diagnostic type ("smtp", "x-unix"), or ""
	Hint           string // a reason the decoder's format states, or ""
	// Command is the SMTP command the remote server answered ("CONN",
	// "HELO", "EHLO", "MAIL", "RCPT", "DATA"); when "", it is read from the
	// diagnostic ("after RCPT TO:", "in reply to end of DATA command", ...).
	Command string
	// Action is the RFC 3464 §2.3.3 action, lower case ("failed",
	// "delayed"), or "".
	Action string
	// RemoteMTA and ReportingMTA are the host names of the receiving
	// server and of the server that wrote the report (RFC 3464 §2.3.5,
	// §2.2.2), or "": they select provider-specific meanings (rhost.go).
	RemoteMTA, ReportingMTA string
	// Recipient is the failed address, or "": its domain selects the
	// provider's meanings when no host is named.
	Recipient string
}

// retryHints are reasons a decoder may state from a fixed sentence that
// still say less than the remote server's own text or code.
var retryHints = map[string]bool{
	ReasonUndefined: true, ReasonOnHold: true, ReasonSystemError: true,
	ReasonSecurityError: true, ReasonExpired: true, ReasonNetworkError: true,
	ReasonHostUnknown: true, ReasonUserUnknown: true,
}

// ReasonOf decides the reason. It never returns "": a bounce whose cause
// cannot be told is ReasonOnHold when it carries a diagnostic text that says
// nothing known, ReasonUndefined when it carries none. The evidence is
// weighed in this order, the first that answers winning:
//
//  0. a provider's own codes and replies (rhost.go): reference codes
//     found in the text (Orange / La Poste, Cox, GoDaddy, Facebook), then
//     the tables of the receiving system named by Remote-MTA, Reporting-MTA
//     or the recipient's domain;
//  1. the decoder's Hint, when it names a definite cause (not one of
//     retryHints): a format that maps a fixed sentence to a reason (qmail,
//     Japanese carriers, Google Groups ...) knows its own wording; a
//     format's "no such user" (a retry hint) under an X.2.1 "mailbox
//     disabled" code is suspend;
//  2. strong phrases of the diagnostic (phrases.go), the most telling reason
//     first (reasonRank): the text says more than any code, so a 5.1.1 that
//     says "rate limited" is speeding and a 5.7.1 "blocked using Spamhaus" is
//     blocked; spam or malware wording said before DATA beside a blocklist
//     phrase is blocked. A local-delivery diagnostic (type x-unix) is mailererror
//     unless it speaks of quota or size. A fault on the way read from the
//     text (expired and the reasons ranked after it, but contenterror) gives
//     way to a Hint stating a reason, as the format knows its own sentence;
//  3. a specific enhanced status code (5.1.1, 5.2.2, 5.7.25 ...; statusRules),
//     then a specific reply code (551, 521, 556; replyRules);
//  4. the remaining Hint;
//  5. the SMTP command refused: greeting or HELO is blocked, MAIL FROM is
//     rejected, STARTTLS is failedstarttls (which also takes the place of a
//     security or syntax error read from the text);
//  6. weak phrases (generic words such as "blocked" or "policy");
//  7. a delayed result (kind or Action) is expired;
//  8. a generic enhanced status code (X.7.1, X.3.0 ...), then a reply code;
//  9. onhold when there is diagnostic text, undefined when there is none.
//
// An address reason (userunknown, hostunknown, notaccept) read from the
// text is about the address the refused command carried: at MAIL FROM it is
// the sender's (rejected), at HELO our host's (blocked), and so it is under
// the sender codes X.1.7 and X.1.8. Generic "user unknown" wording counts as
// userunknown only with an X.1.x status code or in answer to RCPT TO;
// otherwise it is a filter's canned reply (filtered),
// so that address_invalid is kept for answers that concern the mailbox.
// A provider's own statement that the mailbox does not exist (Gmail, Exchange,
// Yahoo, Domino ...; reasonUserUnknownDefinite) stays userunknown, and so
// does Sendmail's own DNS answer for hostunknown (reasonHostUnknownDefinite).
// See byCommand and refine.
func ReasonOf(e Evidence) string {
	var buf [2048]byte
	var ms [16]match
	text := normalize(e.Diagnostic, buf[:])
	command := strings.ToUpper(e.Command)
	commandKnown := command != ""
	commandOf := func() string {
		if !commandKnown {
			command, commandKnown = commandIn(text), true
		}
		return command
	}
	if r := referenceReason(text); r != "" {
		return r
	}
	if h := hostRuleFor(e.RemoteMTA, e.ReportingMTA, e.Recipient); h != nil {
		if r := h.reason(text, e.Status, commandOf); r != "" {
			return r
		}
	}

	if e.Hint != "" && isReason(e.Hint) && !retryHints[e.Hint] {
		return e.Hint
	}
	if e.Hint == ReasonUserUnknown && len(e.Status) >= 5 && e.Status[1:] == ".2.1" {
		// The format's own category says "no such user" while the code
		// says X.2.1 "mailbox disabled, not accepting messages": the code
		// is the more precise of the two (PowerMTA files disabled
		// mailboxes under bad-mailbox).
		return ReasonSuspend
	}

	found := strongPhrases.find(text, ms[:0])
	tr := ""
	if i := strongPhrases.best(found); i >= 0 {
		tr = strongPhrases.rules[i].reason
	}
	if strings.EqualFold(e.DiagnosticType, "x-unix") {
		switch tr {
		case ReasonMailboxFull, ReasonMesgTooBig, ReasonExceedLimit, ReasonSuspend:
			return tr
		}
		return ReasonMailerError
	}
	if tr == ReasonUserUnknown {
		// A provider's own statement anywhere in the text makes the
		// generic wording beside it definite.
		for _, m := range found {
			if strongPhrases.rules[m.rule].reason == reasonUserUnknownDefinite {
				tr = reasonUserUnknownDefinite
				break
			}
		}
	}
	if tr == reasonHostUnknownDefinite {
		return refine(ReasonHostUnknown, e.Status)
	}
	if tr == reasonUserUnknownDefinite {
		// The provider's own words say the mailbox does not exist.
		return ReasonUserUnknown
	}
	if tr != "" && e.Hint != "" && e.Hint != ReasonUndefined && e.Hint != ReasonOnHold &&
		isReason(e.Hint) && reasonRank[tr] >= reasonRank[ReasonExpired] && tr != ReasonContentError {
		// A fault on the way read from the text says less than the
		// reason the format itself states.
		return e.Hint
	}
	if tr == ReasonSpamDetected || tr == ReasonVirusDetected {
		// A content verdict is only given once the content was sent: said
		// before DATA, next to a blocklist phrase, it is about our host.
		switch commandOf() {
		case "CONN", "HELO", "EHLO", "MAIL", "RCPT":
			for _, m := range found {
				if strongPhrases.rules[m.rule].reason == ReasonBlocked {
					return ReasonBlocked
				}
			}
		}
	}
	if tr == ReasonSecurityError || tr == ReasonSyntaxError {
		if commandOf() == "STARTTLS" {
			return ReasonFailedSTARTTLS
		}
	}
	if tr != "" {
		return refine(byCommand(tr, commandOf, e.Status), e.Status)
	}

	sr, sok := statusRule(e.Status)
	if sok && sr.specific {
		return sr.reason
	}
	rr, rok := replyRules[strings.TrimSpace(e.ReplyCode)]
	if rok && rr.specific {
		return rr.reason
	}
	if e.Hint != "" && isReason(e.Hint) {
		return e.Hint
	}
	switch commandOf() {
	case "CONN", "HELO", "EHLO":
		return ReasonBlocked
	case "MAIL":
		return ReasonRejected
	case "STARTTLS":
		return ReasonFailedSTARTTLS
	}
	found = weakPhrases.find(text, found[:0])
	if i := weakPhrases.best(found); i >= 0 {
		return weakPhrases.rules[i].reason
	}
	delayed := e.Kind == dsn.KindDelayed || e.Action == "delayed" || e.Action == "expired"
	if delayed && !(sok && (e.Status[2] == '6' || e.Status[2] == '7')) {
		// A delay says the message is still waiting, unless its code
		// names a content or policy refusal (X.6.x, X.7.x), which a delay
		// notice repeats from the last attempt.
		return ReasonExpired
	}
	if sok {
		return sr.reason
	}
	if rok {
		return rr.reason
	}
	if len(text) > 0 {
		return ReasonOnHold
	}
	return ReasonUndefined
}

// byCommand re-reads an address reason found in the text by the SMTP
// command that was refused and by the status code (see ReasonOf).
//
// An address refused at MAIL FROM is the sender's (rejected), at the
// greeting or HELO our host is refused (blocked). A "user unknown" wording is
// taken at its word only where the server said so about the recipient: with a
// status code that names a mailbox problem (X.1.x) or in answer to RCPT TO.
// Said in answer to DATA, or without code and command to place it, it is
// the canned wording of a recipient-side filter (filtered): servers check
// mailboxes at RCPT TO, and filters often reply "User unknown" after reading
// the message. This keeps address_invalid for answers that really concern
// the mailbox.
func byCommand(reason string, commandOf func() string, status string) string {
	switch reason {
	case ReasonUserUnknown, ReasonHostUnknown, ReasonNotAccept:
	default:
		return reason
	}
	command := commandOf()
	switch command {
	case "CONN", "HELO", "EHLO":
		return ReasonBlocked
	case "MAIL":
		return ReasonRejected
	}
	if len(status) >= 5 && (status[1:] == ".1.7" || status[1:] == ".1.8") {
		// X.1.7 / X.1.8: the sender's address or domain is bad (RFC 3463
		// §3.2), whatever the text calls it.
		return ReasonRejected
	}
	if reason != ReasonUserUnknown || command == "RCPT" {
		return reason
	}
	if len(status) >= 5 && status[1] == '.' && status[2] == '1' && status[3] == '.' {
		return reason
	}
	return ReasonFiltered
}

// refine lets the enhanced status code sharpen a reason read from the
// text where the code is the more precise of the two: an unknown host under
// a temporary 4.x.x code is a DNS problem (networkerror), a size refusal
// under X.2.3 ("message length exceeds administrative limit", a per-mailbox
// limit) is exceedlimit, and a transient fault under X.4.7 ("delivery time
// expired") is expired, the final outcome of those retries.
func refine(reason, status string) string {
	if len(status) < 5 || status[1] != '.' {
		return reason
	}
	if status[0] == '4' && reason == ReasonHostUnknown {
		// A domain that does not resolve for now is a DNS problem on the
		// way; only a permanent answer says the domain is dead.
		return ReasonNetworkError
	}
	switch status[2:] {
	case "2.3":
		if reason == ReasonMesgTooBig {
			return ReasonExceedLimit
		}
	case "4.7":
		switch reason {
		case ReasonNetworkError, ReasonSystemError, ReasonOnHold:
			return ReasonExpired
		}
	}
	return reason
}

// commandMarkers are the phrases MTAs use to say which SMTP command the
// remote server refused: Postfix "(in reply to RCPT TO command)", Exim
// "SMTP error from remote mail server after end of data:", Sendmail's
// transcript ">>> DATA", qmail "Connected to X but sender was rejected",
// DragonFly "did not like our RCPT TO:", 1&1 "for TEXT command".
var commandMarkers = []struct {
	command, phrase string
}{
	{"DATA", "after end of data"},
	{"DATA", "in reply to end of data command"},
	{"DATA", "in reply to data command"},
	{"DATA", "after data"},
	{"DATA", ">>> data"},
	{"DATA", "for text command"},
	{"DATA", "did not like our data"},
	{"RCPT", "after rcpt to"},
	{"RCPT", "in reply to rcpt to command"},
	{"RCPT", ">>> rcpt to"},
	{"RCPT", "did not like our rcpt to"},
	{"RCPT", "does not like recipient"},
	{"RCPT", "for rcpt command"},
	{"STARTTLS", "in reply to starttls command"},
	{"STARTTLS", "after starttls"},
	{"RCPT", "[rcpt_to]"}, // Yahoo
	{"RCPT", "smtp:rcpt"}, // X3
	{"MAIL", "after mail from"},
	{"MAIL", "in reply to mail from command"},
	{"MAIL", ">>> mail from"},
	{"MAIL", "sender was rejected"},
	{"MAIL", "did not like our mail from"},
	{"HELO", "after initial connection"},
	{"HELO", "in reply to helo command"},
	{"HELO", "in reply to ehlo command"},
	{"HELO", "after helo"},
	{"HELO", "after ehlo"},
	{"HELO", "my name was rejected"},
	{"HELO", ">>> ehlo"},
	{"HELO", ">>> helo"},
}

// commandPhrases finds commandMarkers in one pass; its rules carry the
// command where phrase tables carry a reason.
var commandPhrases = func() *matcher {
	rules := make([]phraseRule, len(commandMarkers))
	for i, m := range commandMarkers {
		rules[i] = phraseRule{reason: m.command, phrase: m.phrase}
	}
	return newMatcher(rules, nil)
}()

// commandIn returns the SMTP command a normalised diagnostic says was
// refused, or "". The marker nearest the end wins: it precedes the reply.
func commandIn(text []byte) string {
	var ms [8]match
	best, at := "", -1
	for _, m := range commandPhrases.find(text, ms[:0]) {
		if m.start > at {
			best, at = commandPhrases.rules[m.rule].reason, m.start
		}
	}
	return best
}

var reasonSet = func() map[string]bool {
	m := make(map[string]bool, len(Reasons))
	for _, r := range Reasons {
		m[r] = true
	}
	return m
}()

func isReason(s string) bool { return reasonSet[s] }
