package classify

import "github.com/rebound-hq/rebound/internal/dsn"

// Classify returns the Verdict for one decoded result, following
// ../shared/docs/classification.md.
//
// Kinds other than bounce and delayed have fixed answers: auto_reply is
// vacation / "Auto-reply", complaint is feedback / "Complaint", delivered is
// delivered with no label, not_bounce has no reason and no label. None of
// them has a class or an invalid address.
//
// For bounce (and an empty Kind, read as bounce) and delayed, the reason is
// decided in this order, the first that answers winning:
//
//  1. strong phrases in the diagnostic text (phrases.go), the most
//     specific reason first (see reasonRank): the text says more than any
//     code, so a 5.1.1 that says "rate limited" is speeding;
//  2. a specific enhanced status code (5.1.1, 5.2.2, 5.7.25 ...; statusRules),
//     then a specific reply code (551, 521, 556; replyRules);
//  3. the decoder's Hint, a reason the message's format states;
//  4. weak phrases (generic words such as "rejected" or "denied");
//  5. a generic enhanced status code (X.7.1, X.3.0 ...), then the reply code;
//  6. undefined.
//
// Class (bounce only) is the first digit of the enhanced code, else of the
// reply code (4 soft, 5 hard), else hard only where the address is invalid.
// A delayed result is labelled "Delayed" whatever its reason.
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

	reason := Reason(r.Status, r.ReplyCode, r.Diagnostic, r.Hint)

	sc, rc := codeClass(r.Status), codeClass(r.ReplyCode)
	// A "2.x.x" or "4.x.x" status on a failed delivery still decides the
	// class; a missing one falls back to the reply code.
	digit := sc
	if digit == 0 || digit == '2' {
		if rc != 0 && rc != '2' {
			digit = rc
		}
	}
	permanent := digit == '5'
	invalid := AddressInvalid(reason, permanent)

	if r.Kind == dsn.KindDelayed {
		return Verdict{Reason: reason, Label: LabelDelayed}
	}

	class := ClassSoft
	switch digit {
	case '5':
		class = ClassHard
	case '4':
		class = ClassSoft
	default:
		if invalid {
			class = ClassHard
		}
	}
	return Verdict{
		Class:          class,
		Reason:         reason,
		Label:          LabelFor(reason, class),
		AddressInvalid: invalid,
	}
}

// Reason decides the reason of a failed or delayed delivery from its
// enhanced status code ("5.1.1" or ""), SMTP reply code ("550" or ""),
// diagnostic text and the decoder's hint (a reason, or ""), in the order
// documented on Classify. It never returns "": a bounce whose cause cannot be
// told is ReasonUndefined.
func Reason(status, reply, diagnostic, hint string) string {
	var buf [1024]byte
	var ms [16]match
	text := normalize(diagnostic, buf[:])

	found := strongPhrases.find(text, ms[:0])
	if i := strongPhrases.best(found); i >= 0 {
		return strongPhrases.rules[i].reason
	}
	sr, sok := statusRule(status)
	if sok && sr.specific {
		return sr.reason
	}
	rr, rok := replyRules[reply]
	if rok && rr.specific {
		return rr.reason
	}
	if hint != "" && isReason(hint) {
		return hint
	}
	found = weakPhrases.find(text, found[:0])
	if i := weakPhrases.best(found); i >= 0 {
		return weakPhrases.rules[i].reason
	}
	if sok {
		return sr.reason
	}
	if rok {
		return rr.reason
	}
	return ReasonUndefined
}

var reasonSet = func() map[string]bool {
	m := make(map[string]bool, len(Reasons))
	for _, r := range Reasons {
		m[r] = true
	}
	return m
}()

func isReason(s string) bool { return reasonSet[s] }
