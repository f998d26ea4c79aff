package mailbox

import (
	"bufio"
	"bytes"
	"mime"
	"strings"

	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // RFC 2047 words in any charset
	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-message/textproto"
)

// triageFields are the header fields fetched (BODY.PEEK[HEADER.FIELDS ...],
// RFC 9051 §6.4.5) to decide whether a message is worth fetching whole.
var triageFields = []string{
	"From", "Sender", "Return-Path", "Subject", "Content-Type",
	"Auto-Submitted", "X-Failed-Recipients", "X-MS-Exchange-Message-Is-Ndr",
	"X-Autoreply", "X-Autorespond", "X-Apple-Action", "Precedence",
}

// bounceSenders are local parts used by MTAs for DSNs and non-delivery
// reports (RFC 5321 §4.5.1 postmaster; the Sendmail/Postfix/Exim/qmail
// MAILER-DAEMON convention; vendor variants).
var bounceSenders = []string{
	"mailer-daemon", "mailer_daemon", "mailerdaemon", "mail-daemon", "maildaemon",
	"postmaster", "mail.delivery", "mail-delivery", "maildelivery", "mdaemon",
	"post_master", "bounce", "bounces", "nobody", "root", "smtp", "mailadmin", "noreply-dsn",
}

// listManagerSuffixes and prefixes mark mailing-list manager addresses
// (Mailman, Majordomo, fml), which send error notices for list postings.
var (
	listManagerSuffixes = []string{"-admin", "-owner", "-bounces", "-request", "-errors"}
	listManagerPrefixes = []string{"owner-"}
)

// bounceSenderNames are display names of DSN senders.
var bounceSenderNames = []string{
	"mail delivery", "mailer-daemon", "mailer daemon", "postmaster", "mail administrator",
	"delivery subsystem", "mail system", "microsoft outlook", "microsoft exchange",
	"internet mail delivery", "mail delivery subsystem", "mailadmin",
}

// bounceSubjects are lower-case fragments of DSN subjects in the languages
// MTAs localise them into. A false positive costs one extra fetch; a false
// negative loses a bounce, so the list leans wide.
var bounceSubjects = []string{
	// English
	"undeliver", "undelivered", "not delivered", "non-deliver", "nondeliver", "non deliver",
	"delivery status notification", "delivery notification", "delivery failure", "delivery failed",
	"delivery has failed", "delivery problem", "delivery delayed", "delayed mail", "delivery report",
	"failed delivery", "failure notice", "failure delivery", "returned mail", "returned to sender",
	"return to sender", "mail delivery", "could not be delivered", "couldn't be delivered",
	"message not delivered", "mail system error", "mail error", "warning: could not send",
	"could not send message", "unable to deliver", "message delivery", "rejected", "bounce",
	"system administrator", "mail failure", "failed mail", "permanent error", "nondelivery",
	"delivery status", "error sending", "mail status", "sending failed", "message blocked",
	"email address not found", "address not found", "user unknown", "mailbox unavailable",
	"notification", "auto-reply", "auto reply", "vacation", "loop alert", "not member", "autoreply", "automatic reply", "out of office", "abuse report",
	"complaint", "feedback report", "delivery final failure", "message you sent",
	// German
	"unzustellbar", "nicht zustellbar", "zustellung", "übermittlungsstatus", "fehlgeschlagen",
	"unzustellbare", "rückläufer",
	// French
	"non remis", "non distribu", "remise", "échec", "echec", "impossible de remettre", "retour",
	"non délivr", "non delivr",
	// Spanish / Portuguese / Italian / Catalan
	"no entregado", "no se puede entregar", "no se pudo entregar", "devuelto", "error de entrega",
	"estado de entrega", "não entregue", "nao entregue", "não foi possível", "devolvida",
	"falha na entrega", "non recapitabil", "mancata consegna", "impossibile recapitare",
	"notificación", "notificação", "notifica",
	// Dutch / Scandinavian / Finnish / Polish / Czech / Hungarian / Turkish
	"onbestelbaar", "niet bezorgd", "kan niet worden bezorgd", "ikke leveret", "kunne ikke leveres",
	"ej levererat", "kunde inte levereras", "ei toimitettu", "toimitus epäonnistui", "niedostarczon",
	"nie można dostarczyć", "nedoručitel", "nedoručen", "kézbesíthetetlen", "teslim edilemedi",
	"iletilemedi",
	// Russian / Ukrainian / Greek
	"не доставлен", "недоставлен", "невозможно доставить", "не може бути доставлено", "недоставлено",
	"δεν παραδόθηκε", "μη παραδοτέο",
	// Chinese / Japanese / Korean
	"退信", "退回", "投递失败", "无法投递", "未送达", "無法傳遞", "未能送達", "系统退信", "傳送失敗",
	"配信不能", "配信エラー", "未配信", "送信できませんでした", "エラー", "不達", "메일 전송 실패",
	"전달되지 않", "반송",
}

// Triage is the outcome of looking at a message's headers.
type Triage struct {
	Likely bool   // fetch the whole message and record it
	Reason string // which rule matched, for logs and tests
}

// TriageHeader decides from a message's header block (the raw bytes of
// BODY[HEADER.FIELDS (...)] or of a whole header) whether the message may be
// a bounce, a delivery delay, an auto-reply or a feedback report, all of
// which the decoder wants to see. It matches, in order:
//   - Content-Type multipart/report (RFC 6522; DSNs per RFC 3464, ARF per RFC 5965)
//   - X-Failed-Recipients (Exim), X-MS-Exchange-Message-Is-Ndr (Exchange)
//   - a null reverse path, Return-Path: <> (RFC 5321 §4.5.5)
//   - Auto-Submitted other than "no" (RFC 3834 §5)
//   - a From or Sender of MAILER-DAEMON, postmaster and similar
//   - a subject matching a localised DSN subject
//
// A header it cannot parse counts as likely, so nothing is lost.
func TriageHeader(raw []byte) Triage {
	th, err := textproto.ReadHeader(bufio.NewReader(bytes.NewReader(withBlankLine(raw))))
	if err != nil {
		return Triage{true, "unparsable header"}
	}
	h := mail.Header{Header: message.Header{Header: th}}

	if ct := h.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil && strings.Contains(strings.ToLower(ct), "multipart/report") {
			return Triage{true, "content-type multipart/report"}
		}
		if mt == "multipart/report" || mt == "message/delivery-status" || mt == "message/feedback-report" {
			return Triage{true, "content-type " + mt}
		}
	}
	if h.Has("X-Failed-Recipients") {
		return Triage{true, "x-failed-recipients"}
	}
	if h.Has("X-MS-Exchange-Message-Is-Ndr") {
		return Triage{true, "x-ms-exchange-message-is-ndr"}
	}
	for _, rp := range h.Values("Return-Path") {
		if v := strings.TrimSpace(rp); v == "<>" || v == "" || strings.EqualFold(v, "<MAILER-DAEMON>") {
			return Triage{true, "null return-path"}
		}
	}
	if as := strings.ToLower(strings.TrimSpace(h.Get("Auto-Submitted"))); as != "" && !strings.HasPrefix(as, "no") {
		return Triage{true, "auto-submitted " + as}
	}
	if h.Has("X-Autoreply") || h.Has("X-Autorespond") || h.Has("X-Apple-Action") {
		return Triage{true, "auto-reply header"}
	}
	for _, field := range []string{"From", "Sender"} {
		if r := matchSender(h, field); r != "" {
			return Triage{true, r}
		}
	}
	subject, err := h.Subject()
	if err != nil {
		subject = h.Get("Subject")
	}
	subject = strings.ToLower(subject)
	for _, frag := range bounceSubjects {
		if strings.Contains(subject, frag) {
			return Triage{true, "subject " + frag}
		}
	}
	return Triage{}
}

// matchSender reports the rule by which the field's addresses (each
// address, then its display name) or, failing those, its raw text name a
// DSN sender; "" if none does.
func matchSender(h mail.Header, field string) string {
	raw := h.Get(field)
	if raw == "" {
		return ""
	}
	field = strings.ToLower(field)
	if addrs, err := h.AddressList(field); err == nil {
		for _, a := range addrs {
			if r := matchSenderAddress(strings.ToLower(a.Address)); r != "" {
				return field + " " + r
			}
			if name := strings.ToLower(a.Name); name != "" {
				for _, n := range bounceSenderNames {
					if strings.Contains(name, n) {
						return field + " name " + n
					}
				}
			}
		}
	}
	// Some DSN senders write bare "MAILER-DAEMON" without a domain, which
	// is not an RFC 5322 address; match the raw text too.
	if r := matchSenderAddress(strings.ToLower(raw)); r != "" {
		return field + " " + r
	}
	return ""
}

// matchSenderAddress reports which bounce sender or list manager the local
// part of the lower-case address addr is; "" if neither.
func matchSenderAddress(addr string) string {
	local := addr
	if i := strings.LastIndexByte(addr, '@'); i >= 0 {
		local = addr[:i]
	}
	local = strings.Trim(local, "<>\" ")
	if strings.Contains(local, "mailer-daemon") || strings.Contains(local, "postmaster") {
		return "mailer-daemon"
	}
	for _, s := range bounceSenders {
		if local == s || strings.HasPrefix(local, s+"+") || strings.HasPrefix(local, s+"-") {
			return s
		}
	}
	for _, suf := range listManagerSuffixes {
		if strings.HasSuffix(local, suf) {
			return "list manager " + suf
		}
	}
	for _, pre := range listManagerPrefixes {
		if strings.HasPrefix(local, pre) {
			return "list manager " + pre
		}
	}
	return ""
}

// withBlankLine makes sure a header block ends with the empty line
// textproto.ReadHeader expects; HEADER.FIELDS responses usually include it,
// but a header-only message may not.
func withBlankLine(b []byte) []byte {
	switch {
	case bytes.HasSuffix(b, []byte("\r\n\r\n")), bytes.HasSuffix(b, []byte("\n\n")):
		return b
	case bytes.HasSuffix(b, []byte("\r\n")), bytes.HasSuffix(b, []byte("\n")):
		return append(b[:len(b):len(b)], '\r', '\n')
	default:
		return append(b[:len(b):len(b)], '\r', '\n', '\r', '\n')
	}
}
