package dsn

import (
	"strings"
)

// finish fills what every format shares: clean recipients, status and reply
// code found in the diagnostic, remote MTA and provider, the original.
func finish(m *message, res []Result, format string) {
	orig := m.originalOf()
	if orig.MessageID == "" {
		// A bounce that quotes nothing may still name the message it
		// answers (Gmail's and Exchange's reports carry In-Reply-To and
		// References).
		if id := firstMsgID(m.hdr.get("in-reply-to")); id != "" {
			orig.MessageID = id
		} else if id := lastMsgID(m.hdr.get("references")); id != "" {
			orig.MessageID = id
		}
	}
	for i := range res {
		r := &res[i]
		if r.Format == "" {
			r.Format = format
		}
		r.Recipient = cleanAddress(r.Recipient)
		r.OriginalRecipient = cleanAddress(r.OriginalRecipient)
		r.Diagnostic = collapseSpace(r.Diagnostic)
		switch r.Kind {
		case KindBounce, KindDelayed, KindDelivered:
			fillCodes(r)
			if r.Command == "" && r.Kind != KindDelivered {
				if len(res) <= maxTextLookups {
					r.Command = commandOf(m, r, len(res) == 1)
				} else {
					r.Command = commandIn(lowerASCII(r.Diagnostic))
				}
			}
			if r.Action == "" {
				switch r.Kind {
				case KindBounce:
					r.Action = "failed"
				case KindDelayed:
					r.Action = "delayed"
				}
			}
			if r.RemoteMTA == "" {
				r.RemoteMTA = hostInText(r.Diagnostic)
			}
			r.Provider = providerOf(r)
		case KindComplaint, KindAutoReply:
			r.Provider = providerOf(r)
		}
		if r.Original.MessageID == "" && r.Original.From == "" && r.Original.To == "" && r.Original.XHeaders == nil {
			r.Original = orig
		}
		detach(r)
	}
}

// detach copies the strings of r that may point into the message buffer
// (header values are substrings of it), so that a result does not keep a
// large message alive.
func detach(r *Result) {
	r.Recipient = strings.Clone(r.Recipient)
	r.OriginalRecipient = strings.Clone(r.OriginalRecipient)
	r.Diagnostic = strings.Clone(r.Diagnostic)
	r.RemoteMTA = strings.Clone(r.RemoteMTA)
	r.ReportingMTA = strings.Clone(r.ReportingMTA)
	r.ReceivedFrom = strings.Clone(r.ReceivedFrom)
	o := &r.Original
	o.MessageID, o.From, o.To = strings.Clone(o.MessageID), strings.Clone(o.From), strings.Clone(o.To)
	o.Subject, o.Date = strings.Clone(o.Subject), strings.Clone(o.Date)
	for k, v := range o.XHeaders {
		o.XHeaders[k] = strings.Clone(v)
	}
}

// maxTextLookups is the number of results above which finish no longer
// searches the whole text once per result (bounded work on huge bounces).
const maxTextLookups = 50

// fillCodes completes Status and ReplyCode from the diagnostic text: a
// missing or generic (X.0.0) status is replaced by a more specific code of
// the same class found in the text (RFC 3463 §3.1); a missing reply code is
// read from the text (RFC 5321 §4.2).
func fillCodes(r *Result) {
	r.Status = cleanStatus(r.Status)
	fail := r.Kind != KindDelivered
	reply, st := codePairOf(r.Diagnostic, fail)
	paired := st != ""
	if st == "" {
		if fail {
			st = failStatus(r.Diagnostic)
		} else {
			st = findStatus(r.Diagnostic)
		}
	}
	if st != "" {
		switch {
		case r.Status == "":
			r.Status = st
		case paired && st[0] == r.Status[0] && !isGenericStatus(st):
			// The remote server's own "550 5.7.1" outweighs the code the
			// reporting MTA chose for its report (RFC 3464 §2.3.4 allows
			// it to differ).
			r.Status = st
		case st[0] == r.Status[0] && !isGenericStatus(st) && (isGenericStatus(r.Status) || strings.HasSuffix(r.Status, ".0") && !strings.HasSuffix(st, ".0")):
			// "Status: 5.0.0" or "5.1.0" with "550 5.7.1 ..." in the
			// diagnostic: the remote server's code is the specific one.
			r.Status = st
		case st[0] != r.Status[0] && reply != "" && reply[0] == st[0] && r.Status[0] != '2':
			// The report's class contradicts the remote reply ("Status:
			// 4.5.0" for "550 5.5.0 ..."): the remote server's word wins.
			r.Status = st
		}
	}
	if r.ReplyCode == "" {
		r.ReplyCode = reply
	}
	if r.ReplyCode == "" {
		r.ReplyCode = replyCodeOf(r.Diagnostic, fail)
	}
	if r.Status == "" && r.Kind != KindDelivered {
		// The message reports a failure without an enhanced code: state its
		// class with RFC 3463's "other or undefined status" (X.0.0), from the
		// reply code, else from the kind and the text (temporary or not).
		switch {
		case r.ReplyCode != "" && (r.ReplyCode[0] == '4' || r.ReplyCode[0] == '5'):
			r.Status = r.ReplyCode[:1] + ".0.0"
		case r.Kind == KindDelayed || r.Action == "delayed" || looksTemporary(r.Diagnostic):
			r.Status = "4.0.0"
		default:
			r.Status = "5.0.0"
		}
	}
	if r.Status == "" && r.ReplyCode != "" && r.Kind == KindDelivered && r.ReplyCode[0] == '2' {
		r.Status = "2.0.0"
	}
}

// temporaryPhrases say a failure is temporary (the MTA will retry).
var temporaryPhrases = []string{
	"will be retried", "will retry", "will continue", "still trying", "temporary failure",
	"temporarily", "try again later", "not yet been delivered", "has been delayed", "is delayed",
	"delivery delayed", "deferred", "this is a temporary error",
	// Given up after retrying a temporary failure until the queue lifetime.
	"retry timeout exceeded", "have been failing for a long time", "retry time not reached",
}

// looksTemporary reports a diagnostic that says the failure is temporary.
func looksTemporary(s string) bool {
	if s == "" {
		return false
	}
	return containsAny(lowerASCII(s), temporaryPhrases)
}

// codePair returns the first reply code immediately followed by an
// enhanced status code of the same class ("550 5.1.1", "550-5.1.1",
// "421 4.2.1"), which is the remote server's own answer.
func codePair(s string) (string, string) {
	return codePairOf(s, false)
}

// codePairOf is codePair; with fail set, success pairs are skipped.
func codePairOf(s string, fail bool) (string, string) {
	for i := 0; i+8 < len(s); i++ {
		c := s[i]
		if c != '4' && c != '5' && c != '2' || fail && c == '2' {
			continue
		}
		if i > 0 && (isDigit(s[i-1]) || s[i-1] == '.' || isAlpha(s[i-1])) {
			continue
		}
		if !isDigit(s[i+1]) || !isDigit(s[i+2]) || (s[i+3] != ' ' && s[i+3] != '-') {
			continue
		}
		j := i + 4
		if j < len(s) && (s[j] == '#' || s[j] == '\'' || s[j] == '"') {
			j++
		}
		if s[j] != c {
			continue
		}
		if st := findStatus(s[j:min(len(s), j+12)]); st != "" && strings.HasPrefix(s[j:], st) {
			return s[i : i+3], st
		}
	}
	return "", ""
}

// isGenericStatus reports an X.0.0 status, which says only the class.
func isGenericStatus(s string) bool {
	return len(s) == 5 && s[1:] == ".0.0"
}

// cleanStatus returns the enhanced status code at the start of s ("5.1.1
// (user unknown)" gives "5.1.1"), or "" when s carries none.
func cleanStatus(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	return findStatus(s)
}

// findStatus returns the first RFC 3463 enhanced status code (class 2, 4 or
// 5, subject and detail of 1-3 digits) in s, or "".
func findStatus(s string) string {
	st, _ := findStatusAt(s, 0)
	return st
}

// failStatus returns the first class 4 or 5 enhanced status code in s: a
// success code in a transcript ("250 2.1.0 Ok") is no failure's reason.
func failStatus(s string) string {
	for off := 0; off < len(s); {
		st, i := findStatusAt(s, off)
		if st == "" || st[0] != '2' {
			return st
		}
		off = i + len(st)
	}
	return ""
}

// findStatusAt returns the first enhanced status code in s at or after
// offset from, and its index.
func findStatusAt(s string, from int) (string, int) {
	for i := from; i+4 < len(s); i++ {
		c := s[i]
		if c != '2' && c != '4' && c != '5' {
			continue
		}
		if s[i+1] != '.' {
			continue
		}
		if i > 0 && (isDigit(s[i-1]) || s[i-1] == '.') {
			continue
		}
		j := i + 2
		n := 0
		for j < len(s) && isDigit(s[j]) && n < 4 {
			j++
			n++
		}
		if n == 0 || n > 3 || j >= len(s) || s[j] != '.' {
			continue
		}
		j++
		k := 0
		for j < len(s) && isDigit(s[j]) && k < 4 {
			j++
			k++
		}
		if k == 0 || k > 3 {
			continue
		}
		if j < len(s) && (isDigit(s[j]) || s[j] == '.' && j+1 < len(s) && isDigit(s[j+1])) {
			continue
		}
		return s[i:j], i
	}
	return "", -1
}

// findReplyCode returns the first SMTP reply code (RFC 5321 §4.2: [245][0-5][0-9])
// that stands as its own token followed by a space, a hyphen or the end, or "".
func findReplyCode(s string) string {
	return replyCodeOf(s, false)
}

// replyCodeOf is findReplyCode; with fail set, 2xx codes are skipped.
func replyCodeOf(s string, fail bool) string {
	for i := 0; i+2 < len(s); i++ {
		c := s[i]
		if c != '2' && c != '4' && c != '5' || fail && c == '2' {
			continue
		}
		if i > 0 {
			p := s[i-1]
			if isDigit(p) || isAlpha(p) || p == '.' || p == '-' || p == '#' || p == '/' || p == ':' && i > 1 && isDigit(s[i-2]) || p == '+' || p == '=' || p == '_' {
				continue
			}
		}
		if s[i+1] < '0' || s[i+1] > '5' || !isDigit(s[i+2]) {
			continue
		}
		if i+3 < len(s) {
			n := s[i+3]
			if n != ' ' && n != '-' && n != '\t' && n != ',' && n != ')' && n != ']' && n != '"' {
				continue
			}
			if n == '-' && i+4 < len(s) && isDigit(s[i+4]) {
				continue
			}
		}
		return s[i : i+3]
	}
	return ""
}

// collapseSpace trims s and joins lines and runs of white space into single
// spaces.
func collapseSpace(s string) string {
	s = strings.TrimSpace(s)
	need := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' || c == '\t' || c == '\r' || c == ' ' && i+1 < len(s) && s[i+1] == ' ' {
			need = true
			break
		}
	}
	if !need {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// cleanAddress strips what surrounds an address ("rfc822;", angle brackets,
// quotes, trailing punctuation) and lower-cases its domain. It returns "" for
// a value without an "@".
func cleanAddress(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if semi := strings.IndexByte(s, ';'); semi >= 0 && semi < 12 && !strings.Contains(s[:semi], "@") {
		s = strings.TrimSpace(s[semi+1:])
	}
	if lt := strings.IndexByte(s, '<'); lt >= 0 {
		if gt := strings.IndexByte(s[lt:], '>'); gt > 0 {
			inner := s[lt+1 : lt+gt]
			if strings.Contains(inner, "@") {
				s = inner
			}
		}
	}
	if q := strings.Index(s, "\"@"); q > 0 {
		// A quoted local part ("john..doe"@example.com) keeps its quotes
		// where they protect something; "john.doe"@example.com names the
		// same mailbox as john.doe@example.com (RFC 5321 section 4.1.2)
		// and loses them.
		if open := strings.IndexByte(s, '"'); open < q {
			end := q + 2
			for end < len(s) && !isAddrStop(s[end]) {
				end++
			}
			dom := lowerASCII(strings.TrimRight(s[q+2:end], "."))
			if local := s[open+1 : q]; dotAtom(local) {
				return local + "@" + dom
			}
			return s[open:q+2] + dom
		}
	}
	s = strings.Trim(s, " \t<>\"'`()[]{},;:.")
	if sp := strings.IndexAny(s, " \t\r\n"); sp >= 0 {
		// "addr (comment)" or "addr said": keep the token holding "@".
		for _, tok := range strings.Fields(s) {
			if strings.Contains(tok, "@") {
				s = strings.Trim(tok, " \t<>\"'`()[]{},;:.")
				break
			}
		}
	}
	s = strings.TrimPrefix(s, "mailto:")
	s = cutCJKPunct(s)
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || at == len(s)-1 {
		return ""
	}
	return s[:at+1] + lowerASCII(s[at+1:])
}

// cjkPunct are full-width punctuation marks that East Asian notices write
// right against an address ("收件人：user@example.cn。"); no address holds
// them.
var cjkPunct = []string{"：", "；", "，", "、", "。", "（", "）", "＜", "＞", "「", "」", "【", "】", "《", "》", "〈", "〉"}

// cutCJKPunct returns the part of s between the full-width punctuation
// marks around its "@" (s itself when it holds none).
func cutCJKPunct(s string) string {
	if isASCII(s) {
		return s
	}
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return s
	}
	local, dom := s[:at], s[at:]
	for _, p := range cjkPunct {
		if i := strings.LastIndex(local, p); i >= 0 {
			local = local[i+len(p):]
		}
		if i := strings.Index(dom, p); i >= 0 {
			dom = dom[:i]
		}
	}
	return local + dom
}

// hostInText returns the remote host named in a diagnostic ("host
// mx.example.com[192.0.2.1] said:", "while talking to mx.example.com.:",
// "connect to mx.example.com[192.0.2.1]:25", "Server mx.example.com[...]
// failed with", "by mx.example.com. [192.0.2.1]"), or "".
func hostInText(s string) string {
	l := lowerASCII(s)
	for _, mk := range []string{"host ", "talking to ", "connect to ", "server ", "by "} {
		off := 0
		for {
			i := strings.Index(l[off:], mk)
			if i < 0 {
				break
			}
			at := i + off
			i += off + len(mk)
			off = i
			if mk == "host " && strings.HasSuffix(l[:at], "at ") {
				continue // "the mail system at host X": the reporting host
			}
			j := i
			for j < len(l) && isHostChar(l[j]) {
				j++
			}
			h := strings.Trim(l[i:j], ".-")
			if mk == "by " && !strings.HasPrefix(strings.TrimLeft(l[j:], ". "), "[") {
				// "by" names a host only before its bracketed address
				// (Gmail's "by mx.example.org. [192.0.2.1]").
				continue
			}
			if strings.Count(h, ".") >= 1 && hasLetter(h) && !strings.Contains(h, "@") {
				return h
			}
		}
	}
	return ""
}

func isHostChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_'
}

func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'a' && s[i] <= 'z' {
			return true
		}
	}
	return false
}

// providerDomains maps domain suffixes to the provider operating them.
// Sources: the MX records and published postmaster pages of each provider.
var providerDomains = []struct {
	suffix   string
	provider Provider
}{
	{"google.com", ProviderGoogle}, {"gmail.com", ProviderGoogle}, {"googlemail.com", ProviderGoogle},
	{"outlook.com", ProviderMicrosoft}, {"hotmail.com", ProviderMicrosoft}, {"live.com", ProviderMicrosoft},
	{"msn.com", ProviderMicrosoft}, {"protection.outlook.com", ProviderMicrosoft}, {"office365.com", ProviderMicrosoft},
	{"microsoft.com", ProviderMicrosoft}, {"hotmail.co.uk", ProviderMicrosoft}, {"hotmail.fr", ProviderMicrosoft},
	{"live.jp", ProviderMicrosoft}, {"outlook.jp", ProviderMicrosoft},
	{"yahoo.com", ProviderYahoo}, {"yahoo.co.jp", ProviderYahoo}, {"yahoodns.net", ProviderYahoo}, {"aol.com", ProviderYahoo},
	{"ymail.com", ProviderYahoo}, {"rocketmail.com", ProviderYahoo}, {"yahoo.co.uk", ProviderYahoo}, {"yahoo.fr", ProviderYahoo},
	{"icloud.com", ProviderApple}, {"me.com", ProviderApple}, {"mac.com", ProviderApple}, {"apple.com", ProviderApple},
}

// providerOfHost returns the provider operating host (a domain or host
// name), or "".
func providerOfHost(h string) Provider {
	h = strings.TrimSuffix(lowerASCII(strings.TrimSpace(h)), ".")
	if h == "" {
		return ""
	}
	for _, d := range providerDomains {
		if strings.HasSuffix(h, d.suffix) && (len(h) == len(d.suffix) || h[len(h)-len(d.suffix)-1] == '.') {
			return d.provider
		}
	}
	if strings.HasPrefix(h, "yahoo.") || strings.Contains(h, ".yahoo.") || strings.HasPrefix(h, "hotmail.") {
		if strings.Contains(h, "yahoo") {
			return ProviderYahoo
		}
		return ProviderMicrosoft
	}
	return ""
}

// providerOf tells the receiving side's operator from the Remote-MTA, the
// host names in the diagnostic and the recipient's domain, in that order.
func providerOf(r *Result) Provider {
	if p := providerOfHost(r.RemoteMTA); p != "" {
		return p
	}
	if r.Diagnostic != "" {
		d := lowerASCII(r.Diagnostic)
		if strings.Contains(d, "gsmtp") || strings.Contains(d, "support.google.com") {
			return ProviderGoogle
		}
		for i := 0; i < len(d); {
			for i < len(d) && !isHostChar(d[i]) {
				i++
			}
			j := i
			for j < len(d) && isHostChar(d[j]) {
				j++
			}
			if j > i && strings.IndexByte(d[i:j], '.') > 0 && (i == 0 || d[i-1] != '@') {
				if p := providerOfHost(d[i:j]); p != "" {
					return p
				}
			}
			i = j
		}
	}
	if at := strings.LastIndexByte(r.Recipient, '@'); at >= 0 {
		if p := providerOfHost(r.Recipient[at+1:]); p != "" {
			return p
		}
	}
	return ProviderOther
}

// originalOf returns what the message tells of the original: the enclosed
// message or headers part, or the headers quoted in the body after a marker.
func (m *message) originalOf() Original {
	var h header
	switch {
	case m.origPart != nil && len(m.origPart.children) > 0:
		h = m.origPart.children[0].hdr
	case m.origPart != nil:
		h, _ = parseHeader(trimLeadingBlank(m.origPart.text()))
	case m.origOffset >= 0:
		t := m.bodyText()
		if m.origOffset < len(t) {
			h, _ = parseHeader(trimLeadingBlank([]byte(t[m.origOffset:])))
		}
	}
	if len(h) == 0 {
		return Original{}
	}
	o := Original{
		MessageID: strings.Trim(strings.TrimSpace(h.get("message-id")), "<>"),
		From:      decodeWords(h.get("from")),
		To:        decodeWords(h.get("to")),
		Subject:   decodeWords(h.get("subject")),
		Date:      h.get("date"),
	}
	for _, f := range h {
		if strings.HasPrefix(f.name, "x-") {
			if o.XHeaders == nil {
				o.XHeaders = map[string]string{}
			}
			k := canonicalKey(f.name)
			if _, dup := o.XHeaders[k]; !dup {
				o.XHeaders[k] = decodeWords(f.value)
			}
		}
	}
	return o
}

// lastMsgID returns the last message identifier of a References value,
// without angle brackets, or "".
func lastMsgID(v string) string {
	gt := strings.LastIndexByte(v, '>')
	if gt < 0 {
		return ""
	}
	lt := strings.LastIndexByte(v[:gt], '<')
	if lt < 0 {
		return ""
	}
	return strings.TrimSpace(v[lt+1 : gt])
}

// trimLeadingBlank drops leading blank lines and indentation so a quoted
// header block starts at its first field.
func trimLeadingBlank(b []byte) []byte {
	for len(b) > 0 {
		switch b[0] {
		case '\n', ' ', '\t', '>':
			b = b[1:]
		default:
			return b
		}
	}
	return b
}

// canonicalKey returns the canonical MIME form of a lower-case header name
// ("x-rebound-campaign" -> "X-Rebound-Campaign").
func canonicalKey(s string) string {
	b := []byte(s)
	up := true
	for i, c := range b {
		if up && c >= 'a' && c <= 'z' {
			b[i] = c - ('a' - 'A')
		}
		up = c == '-'
	}
	return string(b)
}

// isASCII reports whether s holds only 7-bit bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
