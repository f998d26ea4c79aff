package dsn

import "strings"

// RFC 3834 automatic responses: Auto-Submitted: auto-replied (§5.1), the
// de-facto X-Autoreply / X-Autorespond / Precedence: auto_reply headers, and
// vacation subjects in several languages. The recipient is the person who
// answered (From). Bounces from mailer daemons also carry Auto-Submitted, so
// this recogniser runs after every bounce format.

// autoReplySubjects are subject prefixes and phrases of vacation replies
// (lower case).
var autoReplySubjects = []string{
	"automatic reply", "auto reply", "auto-reply", "autoreply", "auto response", "auto-response",
	"autoresponse", "out of office", "out of the office", "vacation", "on leave", "away from",
	"réponse automatique", "reponse automatique", "absence", "abwesenheit", "automatische antwort",
	"respuesta automática", "respuesta automatica", "fuera de la oficina", "risposta automatica",
	"resposta automática", "resposta automatica", "ausência", "automatisch antwoord", "afwezig",
	"autosvar", "automaattinen vastaus", "odpowiedź automatyczna", "автоответ", "автоматический ответ",
	"自動応答", "自動返信", "不在", "자동 응답", "自动回复", "自動回覆", "autosvar", "automatisk svar",
	"automatické odpovědi", "automatikus válasz", "αυτόματη απάντηση", "otomatik yanıt",
}

func init() {
	register(Recogniser{
		Name:   "rfc3834",
		Order:  970,
		Detect: isAutoReply,
		Parse: func(m *message) ([]Result, error) {
			r := Result{Kind: KindAutoReply, Recipient: cleanAddress(m.from), Diagnostic: m.subject, Hint: "vacation"}
			if m.origPart == nil {
				// RFC 3834 §3.1.5: the reply names the message it answers
				// in In-Reply-To; that is the original we sent.
				r.Original = Original{MessageID: firstMsgID(m.hdr.get("in-reply-to")), From: m.hdr.get("to"), To: m.from}
			}
			return []Result{r}, nil
		},
	})
}

// isAutoReply applies the RFC 3834 and vacation markers.
func isAutoReply(m *message) bool {
	if isDaemonSender(m.fromL) || m.hdr.has("x-failed-recipients") {
		// A mail system's message is a bounce or a notice, never a vacation reply.
		return false
	}
	as := lowerASCII(m.hdr.get("auto-submitted"))
	if strings.HasPrefix(as, "auto-replied") {
		return true
	}
	if m.hdr.has("x-autoreply") || m.hdr.has("x-autorespond") || m.hdr.has("x-autoresponder") ||
		m.hdr.has("x-autoreply-from") || m.hdr.has("x-mail-autoreply") {
		return true
	}
	prec := lowerASCII(strings.TrimSpace(m.hdr.get("precedence")))
	if prec == "auto_reply" || prec == "auto-reply" {
		return true
	}
	if strings.HasPrefix(as, "auto-generated") || prec == "bulk" || prec == "list" || prec == "junk" {
		// Notifications and list mail: only a subject that opens with a
		// vacation marker counts ("Automatische Antwort: ...", Outlook's
		// localised prefixes), or an explicit English one anywhere.
		for _, p := range autoReplySubjects {
			if strings.HasPrefix(m.subjectL, p) {
				return true
			}
		}
		return containsAny(m.subjectL, autoReplySubjects[:8])
	}
	return containsAny(m.subjectL, autoReplySubjects)
}

// firstMsgID returns the first message identifier of a field value
// ("<id@host> <id2@host>" gives "id@host"), without angle brackets.
func firstMsgID(v string) string {
	v = strings.TrimSpace(v)
	if lt := strings.IndexByte(v, '<'); lt >= 0 {
		if gt := strings.IndexByte(v[lt:], '>'); gt > 0 {
			return strings.TrimSpace(v[lt+1 : lt+gt])
		}
	}
	if f := strings.Fields(v); len(f) > 0 {
		return f[0]
	}
	return ""
}
