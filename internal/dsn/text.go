package dsn

import (
	"strings"
)

// The shared engine for free-text bounces. A looseFormat says where the
// error section starts and ends; within it, a line that begins with an
// address (optionally after a label such as "Recipient:") opens a recipient
// and the lines that follow are its diagnostic.

// looseFormat is the lenient reader of text bounces of no known format
// (and of the text part of delivery-status reports): the error section
// ends where a quoted original begins, a line that begins with an address
// opens a recipient.
type looseFormat struct {
	name string
	// recipientPrefixes are labels that may precede a recipient address on
	// its line ("recipient:", "final-recipient:", ...), lower case.
	recipientPrefixes []string
}

// originalMarkers are lines (lower case) that introduce a copy of the
// original message in a text bounce, in several MTAs' and languages' words.
var originalMarkers = []string{
	"----- original message -----",
	"-----original message-----",
	"--- below this line is a copy of the message.",
	"below this line is a copy of the message",
	"------ this is a copy of the message, including all the headers. ------",
	"this is a copy of the message, including all the headers",
	"original message follows",
	"----- original message follows -----",
	"--- original message follows",
	"------ original message ------",
	"----- unsent message below -----",
	"----- the header of the original message is following. -----",
	"----- the following is the original message -----",
	"--------- original message ---------",
	"--- the header of the original message is following. ---",
	"------- returned message --------",
	"-------- original message --------",
	"----- message header follows -----",
	"original message headers:",
	"--- original message headers ---",
	"------ the original message follows ------",
	"content-type: message/rfc822",
	"----- original message headers -----",
	"-------- forwarded message --------",
	"------------------ original message ------------------",
	"------ original message headers ------",
	"--- original message ---",
	"-----original message follows-----",
	"included is a copy of the message header:",
	"header of the original message:",
	"[original message header]",
	"---- original message header ----",
	"original message header:",
	"--- message header ---",
	"your message reads (in part):",
	"a copy of the original message below this line:",
	"------- failed message headers -------",
	"the header of the original message is following",
	"original message below",
	"=== original message ===",
	"------ below this line is a copy of the message",
	"----- unsent message follows -----",
	"below is a copy of the original message",
	"this is a copy of your message, including all the headers",
	"-------original message",
	"message headers follow",
	"original message header follows",
	"copy of the original message follows",
	"original message:",
}

// indexOriginalMarker returns the index of the first original marker in
// the lower-case text t, or -1. Every marker contains the word "message"
// (TestOriginalMarkersAnchor), so the markers are only checked on the lines
// where that word occurs: one scan of the text.
func indexOriginalMarker(t string) int {
	off := 0
	for off < len(t) {
		i := strings.Index(t[off:], "message")
		if i < 0 {
			return -1
		}
		i += off
		ls := lineStart(t, i)
		le := strings.IndexByte(t[i:], '\n')
		if le < 0 {
			le = len(t)
		} else {
			le += i
		}
		if j := indexAny(t[ls:le], originalMarkers); j >= 0 {
			return ls + j
		}
		off = le
	}
	return -1
}

// genericFormat is the fallback used to read text bounces of no known
// format, and to complete delivery-status reports from their text part.
var genericFormat = looseFormat{
	name: "generic",
	recipientPrefixes: []string{
		"recipient address:", "recipient:", "original-recipient:", "final-recipient:",
		"address:", "rcpt to:", "mailbox:", "user:", "addressee:", "destinatario:", "empfänger:",
		"destinataire:", "failed recipient:", "invalid recipient:", "unknown recipient:",
		"your message to", "delivery to", "could not be delivered to", "delivery has failed to these recipients or groups:",
		"rcpt:", "e-mail address:", "email address:",
	},
}

// bounceSubjects mark a message as a bounce when no known format matched.
var bounceSubjects = []string{
	"undeliver", "undelivered", "delivery status notification", "delivery failure", "delivery failed",
	"returned mail", "failure notice", "mail delivery failed", "non remis", "unzustellbar",
	"nicht zustellbar", "delivery has failed", "mail system error", "could not send message",
	"rejected:", "no se puede entregar", "não entregue", "niet bezorgd", "недоставлен",
	"не доставлено", "error sending message", "message not delivered", "notificación de estado de entrega",
	"delivery notification", "mail could not be delivered", "delivery problem", "bounce",
	"returned to sender", "message delivery failure", "warning: could not send", "nondeliverable",
	"non-delivery", "unable to deliver", "permanent error", "mail failure",
	"non recapitabile", "non consegnato", "onbestelbaar", "olevererbart", "ikke levert", "kan ikke leveres",
	"nie dostarczono", "niedostarczalna", "nedoručitelné", "teslim edilemedi", "no entregado",
	"no se pudo entregar", "não foi possível entregar", "mensagem não entregue", "échec de la remise",
	"échec de remise", "message non délivré", "zustellung fehlgeschlagen", "fehlgeschlagen",
	"配送エラー", "配信エラー", "送信エラー", "エラーメール", "返送", "未送达", "退信", "无法投递",
	"niedostarczona", "전송 실패", "반송",
}

func init() {
	register(Recogniser{
		Name:  "generic",
		Order: 960,
		Detect: func(m *message) bool {
			if m.hdr.has("x-failed-recipients") {
				return true
			}
			if isDaemonSender(m.fromL) {
				// A mail system's message: a bounce when a recipient can be
				// read from it (Parse returns nothing otherwise).
				return true
			}
			return containsAny(m.subjectL, bounceSubjects) && containsAny(m.lowerText(), genericBodyMarkers)
		},
		Parse: func(m *message) ([]Result, error) { return parseLoose(m, &genericFormat), nil },
	})
}

// genericBodyMarkers are sentences of a bounce body written by many MTAs.
var genericBodyMarkers = []string{
	"could not be delivered", "couldn't be delivered", "was not delivered", "undeliverable",
	"delivery failed", "delivery to the following recipient", "permanent error", "user unknown",
	"does not exist", "unable to deliver", "failed permanently", "mailbox unavailable",
	"returned to the sender", "delivery has failed", "no such user", "message could not",
	"nicht zugestellt", "konnte nicht zugestellt", "unzustellbar", "n'a pas pu être remis", "n'a pas pu être délivré",
	"no se pudo entregar", "no pudo ser entregado", "não foi possível entregar", "não pôde ser entregue",
	"non è stato possibile recapitare", "non è stato recapitato", "kon niet worden bezorgd", "kunde inte levereras",
	"не доставлено", "не было доставлено", "не может быть доставлено", "配送に失敗", "届きませんでした",
	"送信できませんでした", "配信できませんでした", "无法送达", "投递失败",
	"被退回", "退信原因", "전달되지 않았습니다", "전송 실패", "nie mogła zostać dostarczona", "nie została dostarczona",
}

// isDaemonSender reports a From of a mail system (mailer-daemon,
// postmaster, mail delivery subsystem).
func isDaemonSender(fromL string) bool {
	if strings.Contains(fromL, "<>") || strings.TrimSpace(fromL) == "" {
		return true // the null reverse-path is reserved for notifications (RFC 5321 §4.5.5)
	}
	return containsAny(fromL, daemonSenders)
}

// daemonSenders are From markers of mail systems (lower case).
var daemonSenders = []string{"mailer-daemon", "mailer daemon", "postmaster", "post_master", "mail delivery",
	"mail administrator", "mailer_daemon", "maildaemon", "mail-daemon", "mdaemon", "system administrator",
	"post office", "mail system", "mailsystem", "delivery subsystem", "mail-router", "smtp gateway",
	"microsoftexchange"}

// lineIter yields the lines of s with their start offsets.
type lineIter struct {
	s   string
	pos int
}

func (it *lineIter) next() (line string, off int, ok bool) {
	if it.pos >= len(it.s) {
		return "", 0, false
	}
	off = it.pos
	nl := strings.IndexByte(it.s[it.pos:], '\n')
	if nl < 0 {
		line = it.s[it.pos:]
		it.pos = len(it.s)
	} else {
		line = it.s[it.pos : it.pos+nl]
		it.pos += nl + 1
	}
	return line, off, true
}

// section returns the offsets [begin, end) of the error section of a text
// bounce: the whole text up to the first original-message marker, whose
// following line is recorded as where the quoted original starts.
func (f *looseFormat) section(m *message) (int, int) {
	t := m.lowerText()
	end := len(t)
	if i := indexOriginalMarker(t); i >= 0 {
		end = lineStart(t, i)
	}
	if end < len(t) && m.origOffset < 0 {
		if nl := strings.IndexByte(t[end:], '\n'); nl >= 0 {
			m.origOffset = end + nl + 1
		}
	}
	return 0, end
}

// lineStart returns the start offset of the line holding offset i.
func lineStart(s string, i int) int {
	j := strings.LastIndexByte(s[:i], '\n')
	return j + 1
}

// parseText runs the shared engine for format f over m's text.
func parseLoose(m *message, f *looseFormat) []Result {
	text := m.bodyText()
	lower := m.lowerText()
	begin, end := f.section(m)
	sec := text[begin:end]
	secL := lower[begin:end]
	prefixes := f.recipientPrefixes
	if prefixes == nil {
		prefixes = genericFormat.recipientPrefixes
	}
	senders := senderAddresses(m)
	var (
		res      []Result
		diag     []string
		preamble []string
		blankRun int
		cur      = -1
		seen     = map[string]int{}
		closed   bool // the current recipient's block has ended
		// trailing: lines after the closed blocks; a single recipient
		// whose own block names no code takes them ("退信原因：..." then,
		// a paragraph below, "服务器返回信息：550 5.1.1 ...").
		trailing []string
	)
	flush := func() {
		if cur >= 0 {
			r := &res[cur]
			d := strings.Join(diag, " ")
			switch {
			case r.Diagnostic == "":
				r.Diagnostic = d
			case d != "" && len(r.Diagnostic) < maxDiagnostic:
				r.Diagnostic += " " + d
			}
		}
		diag = diag[:0]
	}
	it := lineIter{s: sec}
	for {
		line, off, ok := it.next()
		if !ok {
			break
		}
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			blankRun++
			continue
		}
		lineL := secL[off : off+len(line)]
		if addr, rest, ok := recipientLine(trimmed, strings.TrimSpace(lineL), prefixes); ok && !senders[lowerASCII(addr)] {
			flush()
			key := lowerASCII(addr)
			if at, dup := seen[key]; dup {
				// Repeated mention: it and the following text go to that
				// recipient.
				cur = at
				if rest != "" && len(diag) < 60 && len(res[cur].Diagnostic) < maxDiagnostic {
					diag = append(diag, trimmed)
				}
			} else {
				seen[key] = len(res)
				res = append(res, Result{Kind: KindBounce, Recipient: addr, Diagnostic: rest})
				cur = len(res) - 1
			}
			blankRun = 0
			closed = false
			continue
		}
		if isRuleLine(trimmed) {
			// "----- Transcript of session follows -----": a heading.
			continue
		}
		if isReportField(trimmed) {
			// Delivery-status fields printed in the text end a block.
			closed = true
			blankRun = 0
			continue
		}
		switch {
		case len(res) == 0:
			if len(preamble) < 40 {
				preamble = append(preamble, trimmed)
			}
		case closed:
			if len(trailing) < 20 {
				trailing = append(trailing, trimmed)
			}
		case blankRun == 0 || len(diag) == 0 && res[cur].Diagnostic == "":
			if len(diag) < 60 {
				diag = append(diag, trimmed)
			}
		default:
			// A blank line after the recipient's text closes its block.
			closed = true
		}
		blankRun = 0
	}
	flush()
	if len(res) == 1 && len(trailing) > 0 && findStatus(res[0].Diagnostic) == "" && findReplyCode(res[0].Diagnostic) == "" {
		if t := strings.Join(trailing, " "); findStatus(t) != "" || findReplyCode(t) != "" {
			res[0].Diagnostic = strings.TrimSpace(res[0].Diagnostic + " " + t)
		}
	}
	if len(res) == 0 {
		rcpts := failedRecipients(m)
		if len(rcpts) == 0 {
			rcpts = addressesIn(m, sec)
		}
		if len(rcpts) == 0 {
			rcpts = fallbackRcpts(m)
		}
		for _, a := range rcpts {
			res = append(res, Result{Kind: KindBounce, Recipient: a})
		}
	}
	pre := stripBoilerplate(strings.Join(preamble, " "))
	delay := delayNotice(m)
	for i := range res {
		r := &res[i]
		if delay && !permanentIn(r.Diagnostic) {
			r.Kind = KindDelayed
		}
		if r.Diagnostic == "" {
			r.Diagnostic = pre
		} else if findStatus(r.Diagnostic) == "" && findReplyCode(r.Diagnostic) == "" && pre != "" && len(pre) < 2000 {
			// The preamble may carry the reason ("mailbox is full").
			r.Diagnostic = r.Diagnostic + " " + pre
		}
	}
	return res
}

// delaySubjects are lower-case Subject substrings of delay warnings (RFC
// 3464 "delayed" notices sent as text): Google's "(Delay)", Postfix's
// "Delayed Mail (still being retried)", Exim's "Warning: message ...
// delayed", Exchange's "Delivery delayed", and their translations.
var delaySubjects = []string{
	"(delay)", "delayed mail", "delivery delayed", "message delayed", "delivery status notification (delay",
	"warning: message", "zustellung verzögert", "verzögert", "remise différée", "remise retardée",
	"distribution retardée", "entrega retrasada", "entrega demorada", "consegna ritardata", "遅延",
}

// delayBodyPhrases are lower-case sentences by which a text notice says it
// is only a warning: the mail system keeps retrying (Gmail's "Gmail will
// retry" in the languages Google localises it to, Postfix's and Sendmail's
// warning lines).
var delayBodyPhrases = []string{
	"this is a warning only", "gmail will retry", "gmail effectuera", "gmail versucht", "gmail volverá a intentar",
	"gmail vai tentar", "gmail tentará", "gmail riproverà", "gmail proverà", "will continue trying",
	"will keep trying", "will be retried until",
}

// delayNotice reports whether m is a delay warning rather than a final
// failure, by its subject or a warning sentence in the first part of its
// text.
func delayNotice(m *message) bool {
	if containsAny(m.subjectL, delaySubjects) {
		return true
	}
	low := m.lowerText()
	if len(low) > 4096 {
		low = low[:4096]
	}
	return containsAny(low, delayBodyPhrases)
}

// permanentIn reports whether a diagnostic carries a permanent (5xx /
// 5.X.Y) code, which a delay warning never reports for its recipient.
func permanentIn(d string) bool {
	st, rc := findStatus(d), findReplyCode(d)
	return st != "" && st[0] == '5' || rc != "" && rc[0] == '5'
}

// boilerplate lists the fixed sentences that MTAs open a bounce with
// (Postfix's default bounce template, bounce(5); Sendmail's and Exim's
// openings). They say only that delivery failed, never why, so they are no
// diagnostic: a bounce whose text is nothing else carries none (reason
// undefined rather than a cause read into the template's words). A "*"
// stands for the variable part of a sentence (a host name), up to the
// sentence's end.
var boilerplate = []string{
	"This is the mail system at host *.",
	"I'm sorry to have to inform you that your message could not be delivered to one or more recipients.",
	"It's attached below.",
	"For further assistance, please send mail to postmaster.",
	"If you do so, please include this problem report.",
	"You can delete your own text from the attached returned message.",
	"This is a MIME-encapsulated message.",
	"This message was created automatically by mail delivery software.",
	"This is a multi-part message in MIME format.",
}

// stripBoilerplate removes the boilerplate sentences from a bounce's
// opening text (spaces collapsed as Postfix folds them) and returns what is
// left, or "" when nothing but boilerplate and punctuation was there.
func stripBoilerplate(s string) string {
	if s == "" {
		return s
	}
	s = collapseSpace(s)
	for _, b := range boilerplate {
		if star := strings.IndexByte(b, '*'); star >= 0 {
			head, tail := b[:star], b[star+1:]
			i := strings.Index(s, head)
			if i < 0 {
				continue
			}
			j := strings.Index(s[i+len(head):], tail+" ")
			if j < 0 {
				if !strings.HasSuffix(s, tail) {
					continue
				}
				s = s[:i]
				continue
			}
			s = s[:i] + s[i+len(head)+j+len(tail):]
			continue
		}
		if i := strings.Index(s, b); i >= 0 {
			s = s[:i] + s[i+len(b):]
		}
	}
	s = collapseSpace(s)
	// Postfix signs its template "The mail system".
	s = strings.TrimSpace(strings.TrimSuffix(s, "The mail system"))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80 {
			return s
		}
	}
	return ""
}

// maxDiagnostic bounds the diagnostic text gathered for one recipient.
const maxDiagnostic = 4096

// isRuleLine reports a decorative heading or rule ("----- ... -----",
// "=====").
func isRuleLine(t string) bool {
	return len(t) >= 3 && (strings.HasPrefix(t, "---") && strings.HasSuffix(t, "---") ||
		strings.HasPrefix(t, "===") || strings.HasPrefix(t, "***") || strings.HasPrefix(t, "###"))
}

// isReportField reports a line that is an RFC 3464 delivery-status field
// ("Status: 5.1.1", "Reporting-MTA: dns; ...").
func isReportField(line string) bool {
	colon := strings.IndexByte(line, ':')
	if colon <= 0 || colon > 24 {
		return false
	}
	name := lowerASCII(line[:colon])
	return perRecipientField(name) || name == "reporting-mta" || name == "arrival-date" || name == "received-from-mta" ||
		name == "x-postfix-queue-id" || name == "x-postfix-sender" || name == "original-envelope-id"
}

// senderAddresses returns the addresses (lower case) of the sender of the
// failed message, which is never a failed recipient: the bounce's To and
// the original's From, Sender and Return-Path.
func senderAddresses(m *message) map[string]bool {
	out := map[string]bool{}
	add := func(v string) {
		for _, c := range addressList(v) {
			out[lowerASCII(c)] = true
		}
	}
	add(m.hdr.get("to"))
	var oh header
	switch {
	case m.origPart != nil && len(m.origPart.children) > 0:
		oh = m.origPart.children[0].hdr
	case m.origPart != nil:
		oh, _ = parseHeader(trimLeadingBlank(m.origPart.text()))
	case m.origOffset >= 0 && m.origOffset < len(m.bodyText()):
		oh, _ = parseHeader(trimLeadingBlank([]byte(m.bodyText()[m.origOffset:])))
	}
	add(oh.get("from"))
	add(oh.get("sender"))
	add(oh.get("return-path"))
	return out
}

// failedRecipients returns the addresses of X-Failed-Recipients (Exim and
// others).
func failedRecipients(m *message) []string {
	return addressList(m.hdr.get("x-failed-recipients"))
}

// addressList returns the addresses of a comma-separated field value,
// cleaned by cleanAddress, or nil.
func addressList(v string) []string {
	if v == "" {
		return nil
	}
	var out []string
	for _, a := range strings.Split(v, ",") {
		if c := cleanAddress(a); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// addressesIn returns the distinct addresses named in the error section of
// a text bounce that are not the bounce's own From or To, nor a mail
// system's address: "There was an error delivering your mail to <x>",
// "Delivery failed 20 attempts: x".
func addressesIn(m *message, sec string) []string {
	skip := senderAddresses(m)
	for _, v := range []string{m.hdr.get("from"), m.hdr.get("reply-to")} {
		for _, c := range addressList(v) {
			skip[lowerASCII(c)] = true
		}
	}
	var out []string
	for i := 0; i < len(sec) && len(out) < 20; {
		at := strings.IndexByte(sec[i:], '@')
		if at < 0 {
			break
		}
		at += i
		a, _ := addressAround(sec, at)
		i = at + 1
		if a == "" || !strings.Contains(a[strings.IndexByte(a, '@'):], ".") {
			continue
		}
		l := lowerASCII(a)
		if skip[l] || isDaemonSender(l) || strings.HasPrefix(l, "noreply") || strings.HasPrefix(l, "no-reply") {
			continue
		}
		skip[l] = true
		out = append(out, a)
	}
	return out
}

// fallbackRcpts returns the recipients a bounce names outside its text:
// X-Failed-Recipients (Exim and others), else the original's To.
func fallbackRcpts(m *message) []string {
	if out := failedRecipients(m); len(out) > 0 {
		return out
	}
	return addressList(m.originalOf().To)
}

// recipientLine reports whether a (trimmed) line opens a recipient: it
// begins with an address, optionally after one of the labels. It returns
// the address and the rest of the line.
func recipientLine(line, lineL string, prefixes []string) (string, string, bool) {
	if strings.IndexByte(line, '@') < 0 {
		return "", "", false
	}
	s, sl := line, lineL
	for _, p := range prefixes {
		if strings.HasPrefix(sl, p) {
			s = strings.TrimSpace(s[len(p):])
			break
		}
	}
	s = strings.TrimLeft(s, "*-•> \t\"'")
	if len(s) > 7 && strings.EqualFold(s[:7], "mailto:") {
		s = s[7:]
	}
	if s == "" {
		return "", "", false
	}
	if len(s) > 5 && (s[0] == '4' || s[0] == '5') && isDigit(s[1]) && isDigit(s[2]) && s[3] == ' ' && s[4] == '<' {
		// Sendmail's "550 <user@example.org>... User unknown".
		if gt := strings.IndexByte(s, '>'); gt > 0 && strings.HasPrefix(s[gt+1:], "...") {
			if a := cleanAddress(s[5:gt]); a != "" {
				return a, strings.TrimSpace(s[:4] + strings.TrimLeft(s[gt+1:], ".")), true
			}
		}
	}
	if s[0] == '<' {
		gt := strings.IndexByte(s, '>')
		if gt < 0 {
			return "", "", false
		}
		a := cleanAddress(s[1:gt])
		if a == "" {
			return "", "", false
		}
		rest := strings.TrimLeft(s[gt+1:], ":.,; \t")
		rest = strings.TrimPrefix(rest, "..")
		return a, strings.TrimSpace(rest), true
	}
	// A bare address: first token must hold "@".
	j := 0
	for j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != ':' && s[j] != ',' && s[j] != ';' && s[j] != '(' && s[j] != '<' && s[j] != '"' {
		j++
	}
	tok := s[:j]
	if strings.IndexByte(tok, '@') <= 0 || strings.Contains(tok, "/") || strings.Contains(tok, "=") {
		return "", "", false
	}
	a := cleanAddress(tok)
	if a == "" || !strings.Contains(a[strings.IndexByte(a, '@'):], ".") && !strings.HasSuffix(a, "localhost") {
		return "", "", false
	}
	rest := strings.TrimSpace(strings.TrimLeft(s[j:], ":.,; \t\"'"))
	if strings.HasPrefix(rest, "<") {
		// "Name addr <addr>" style: skip the repeated bracketed form.
		if gt := strings.IndexByte(rest, '>'); gt > 0 && strings.Contains(rest[:gt], "@") {
			rest = strings.TrimSpace(strings.TrimLeft(rest[gt+1:], ":.,; \t"))
		}
	}
	return a, rest, true
}

// addressAround extracts the address containing s[at] and what follows it.
func addressAround(s string, at int) (string, string) {
	i := at
	for i > 0 && !isAddrStop(s[i-1]) {
		i--
	}
	j := at
	for j < len(s) && !isAddrStop(s[j]) {
		j++
	}
	a := cleanAddress(s[i:j])
	if a == "" {
		return "", ""
	}
	return a, strings.TrimSpace(strings.TrimLeft(s[min(j+1, len(s)):], ":.,;> \t"))
}

func isAddrStop(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '<' || c == '>' || c == '"' || c == '\'' || c == '(' || c == ')' || c == ',' || c == ';' || c == '[' || c == ']' || c == ':'
}
