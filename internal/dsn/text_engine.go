package dsn

import (
	"strings"
)

// This file holds the shared machinery of the free-text (non RFC 3464)
// bounce recognisers. Each format family lives in its own text_<family>.go
// file and describes itself as data (a textFormat): the markers that
// identify it, where its error section starts and ends, how it lists
// recipients and which of its fixed sentences imply a reason. The engine
// walks the error section line by line, opens a recipient at each recipient
// line and appends the following lines to that recipient's diagnostic, then
// reads the reply code and enhanced status code out of the diagnostic.
//
// Detection is by cheap substring tests on the lower-cased From and Subject
// and on the first lines of the body; no regular expression runs here.

// textHeader is the read access the recognisers need to the bounce's
// top-level header (net/textproto.MIMEHeader, net/mail.Header and
// go-message's textproto.Header all satisfy it). Values are expected
// decoded (RFC 2047) where the caller can.
type textHeader interface {
	Get(key string) string
}

// headerMark is a marker in a named header field: the lower-cased value
// contains has.
type headerMark struct {
	name string
	has  string
	idx  int // position in textHeaderNames, set by registerText
}

// phraseHint maps a fixed sentence of a format (lower case) to the reason
// the format itself means by it. It becomes Result.Hint; classify uses it
// when the status, reply code and diagnostic say nothing more specific.
type phraseHint struct {
	phrase string
	reason string
}

// rcptRule says how a format lists failed recipients inside its error
// section. A line may match several ways; they are tried in field order.
type rcptRule struct {
	// angle: the line starts (at the left margin) with "<addr>",
	// optionally followed by ":" and a diagnostic ("<user@example.com>:"
	// in qmail, Yahoo, Postfix).
	angle bool
	// indent > 0: the line is indented by exactly indent spaces and its
	// first word is an address ("  user@example.com" in Exim).
	indent int
	// bare: the trimmed line is only an address (with or without <>).
	bare bool
	// prefixes: the trimmed line starts with one of these (case-insensitive);
	// the first address after it is the recipient and the rest of the line
	// starts the diagnostic.
	prefixes []string
	// contains: the line contains one of these phrases; the first address
	// in the line is the recipient.
	contains []string
	// lead: the trimmed line's first word is an address, optionally
	// followed by ":" ("user@example.com: 550 ..." in OpenSMTPD,
	// "user@example.com on <date>" in Exchange 2003).
	lead bool
	// keepLine: the whole recipient line is part of the diagnostic (used
	// where the address sits inside the error sentence).
	keepLine bool
}

// textFormat describes one free-text bounce format as data.
type textFormat struct {
	name string
	// prio fixes the order in which formats are tried regardless of file
	// initialisation order: lower first; equal priorities keep
	// registration order. registerText sets it.
	prio int

	// Detection. A format is tried when any header marker matches; with
	// needBody set, one of bodyHas must also appear in the body. A format
	// without header markers is tried when one of bodyHas appears.
	fromHas    []string // lower-case substrings of From
	subjectHas []string // lower-case substrings of Subject
	headerHas  []headerMark
	bodyHas    []string // exact substrings of the body
	needBody   bool

	// Layout. The error section starts after the first line containing
	// one of start (at the body start when start is empty) and ends at the
	// first line starting (after leading blanks) with one of stop: the
	// boundary of the returned original.
	start []string
	stop  []string
	rcpt  rcptRule
	// fallbackRcpt: when no recipient line is found, take the recipients
	// from X-Failed-Recipients (or the given header) and the whole error
	// section as their diagnostic.
	fallbackRcpt bool
	// skip: lines containing one of these are not diagnostic text.
	skip []string
	// preDiag: lines before the first recipient line are diagnostic text
	// of the recipients that follow (formats that state the error first).
	preDiag bool
	// diagEnd: a line starting with one of these ends the current
	// diagnostic; following lines are ignored until the next recipient.
	diagEnd []string
	// diagAlso: lines starting with one of these, wherever they sit in
	// the section, are added to every recipient's diagnostic (a
	// machine-readable line far below the human text, like Microsoft
	// 365's "Status code: 550 5.1.10").
	diagAlso []string
	// cmdAfter: the line after a line starting with this marker names the
	// SMTP command the remote server refused (m-FILTER's "-------SMTP
	// command" block); it sets Result.Command of the current recipient.
	cmdAfter string
	// commands: fixed sentences of the format that tell which SMTP
	// command was refused (iMail's "Unknown user: addr" reports a refusal
	// of RCPT TO); phrase → command, read into Result.Command.
	commands []phraseHint
	// noRcpt: the format names no recipient at all; return one Result with
	// an empty Recipient and the section as its diagnostic (the caller
	// takes the recipient from the returned original).
	noRcpt bool
	// hint is the reason the format means whatever its text says (for
	// example Google Groups' refusal to post); phrase hints come first.
	hint string

	// Meaning.
	// softExpiry: a give-up notice whose only cause is the queue lifetime
	// (hint "expired", no code in the text) reports the temporary
	// condition it gave up on: class 4, even where the template calls
	// every bounce "a permanent error".
	softExpiry bool
	hints      []phraseHint // fixed sentences → reason
	// hintsBare are fixed sentences that only wrap the remote server's
	// answer ("was rejected by a remote mail server"): they imply their
	// reason only when the diagnostic carries no reply code of its own.
	hintsBare []phraseHint
	// hintsGenericCode are fixed markers that imply their reason only
	// when the status code found says no more than its class (none, or
	// X.Y.0): Gmail's "(state 18)" tells where the remote server refused,
	// which a specific code such as 5.2.2 outranks.
	hintsGenericCode []phraseHint
	soft             bool     // the format reports a temporary failure (default permanent)
	delayed          []string // phrases marking the message as a delay notice (kind delayed)

	// parse replaces the line walk for formats that need it; it returns
	// the recipients with Recipient and Diagnostic (and optionally Status,
	// ReplyCode, RemoteMTA, Hint) set; the engine completes the rest.
	parse func(f *textFormat, h textHeader, section string) []Result
}

// textFormats is the registry of free-text formats, most specific first.
// Each text_<family>.go file adds its formats in init via registerText.
var textFormats []*textFormat

// textHeaderNames lists, once each, the header fields any format's
// headerHas reads; decodeText fetches and lower-cases them once per message.
var textHeaderNames []string

// maxTextHeaders and maxTextFormats size the fixed arrays decodeText keeps
// on the stack (the header values read, the formats tried); registerText
// panics at start-up when the registry outgrows them.
const (
	maxTextHeaders = 16
	maxTextFormats = 128
)

// textScanLimit bounds the bytes of body searched for detection markers and
// of a diagnostic searched for hint phrases: markers sit at the top of a
// notice, and a diagnostic longer than this is quoted text, not an error.
const textScanLimit = 2048

// textDiagLimit caps a text format's Diagnostic (bytes, cut at a UTF-8
// boundary).
const textDiagLimit = 2048

// registerText adds formats to the registry, keeping it sorted by priority.
// It normalises stop markers the way cutAtBoundary reads lines.
func registerText(prio int, fs ...*textFormat) {
	for _, f := range fs {
		f.prio = prio
		textFormats = append(textFormats, f)
		for i := range f.stop {
			f.stop[i] = strings.TrimLeft(f.stop[i], " \t>-=")
		}
		for i := range f.headerHas {
			m := &f.headerHas[i]
			m.idx = -1
			for j, n := range textHeaderNames {
				if strings.EqualFold(n, m.name) {
					m.idx = j
				}
			}
			if m.idx < 0 {
				m.idx = len(textHeaderNames)
				textHeaderNames = append(textHeaderNames, m.name)
			}
		}
	}
	if len(textHeaderNames) > maxTextHeaders || len(textFormats) > maxTextFormats {
		panic("dsn: the text format registry outgrew maxTextHeaders or maxTextFormats")
	}
	// insertion sort: the registry is small and built once.
	for i := 1; i < len(textFormats); i++ {
		for j := i; j > 0 && textFormats[j].prio < textFormats[j-1].prio; j-- {
			textFormats[j], textFormats[j-1] = textFormats[j-1], textFormats[j]
		}
	}
}

// decodeText runs the free-text recognisers over a bounce whose top-level
// header is h and whose notification text (decoded to UTF-8, the text
// parts before any returned message) is body. It returns one Result per
// failed recipient, with Format set, or nil when no format recognises the
// message. Kind is KindBounce or KindDelayed.
func decodeText(h textHeader, body string) []Result {
	from := strings.ToLower(h.Get("From"))
	subj := strings.ToLower(h.Get("Subject"))
	var hv [maxTextHeaders]string
	for i, n := range textHeaderNames {
		hv[i] = strings.ToLower(h.Get(n))
	}
	head := capText(body, textScanLimit)
	var tried [maxTextFormats]bool
	// Pass 1: formats whose header markers match.
	for i, f := range textFormats {
		if !f.headerMatch(hv[:], from, subj) {
			continue
		}
		tried[i] = true
		if f.needBody && !containsAny(head, f.bodyHas) {
			continue
		}
		if rs := f.run(h, body); len(rs) > 0 {
			return rs
		}
	}
	// Pass 2: formats recognisable from the body alone. Their markers are
	// the notice's opening lines, so a shorter head is searched.
	head = capText(head, textScanLimit/2)
	for i, f := range textFormats {
		if tried[i] || len(f.bodyHas) == 0 {
			continue
		}
		if !containsAny(head, f.bodyHas) {
			continue
		}
		if rs := f.run(h, body); len(rs) > 0 {
			return rs
		}
	}
	return nil
}

// headerMatch reports whether one of f's header markers matches.
func (f *textFormat) headerMatch(hv []string, from, subj string) bool {
	for _, s := range f.fromHas {
		if strings.Contains(from, s) {
			return true
		}
	}
	for _, s := range f.subjectHas {
		if strings.Contains(subj, s) {
			return true
		}
	}
	for _, m := range f.headerHas {
		v := hv[m.idx]
		if v == "" {
			continue
		}
		if m.has == "" || strings.Contains(v, m.has) {
			return true
		}
	}
	return false
}

// run extracts the error section and decodes it.
func (f *textFormat) run(h textHeader, body string) []Result {
	section, ok := f.section(body)
	if !ok {
		return nil
	}
	var rs []Result
	if f.parse != nil {
		rs = f.parse(f, h, section)
	} else {
		rs = f.walk(section)
	}
	if len(rs) == 0 && f.fallbackRcpt {
		rs = fallbackRecipients(h, section)
	}
	if len(rs) == 0 {
		return nil
	}
	rs = mergeEmbeddedDS(body, rs)
	delayed := containsAny(capText(section, textScanLimit), f.delayed)
	for i := range rs {
		f.finish(&rs[i], delayed)
		if f.softExpiry && rs[i].Hint == "expired" && rs[i].Status == "5.0.0" && rs[i].ReplyCode == "" {
			rs[i].Status = "4.0.0"
		}
	}
	return rs
}

// section returns the error section of body: after the start marker line,
// up to the stop boundary.
func (f *textFormat) section(body string) (string, bool) {
	s := body
	if len(f.start) > 0 {
		at := -1
		for _, m := range f.start {
			if i := strings.Index(s, m); i >= 0 && (at < 0 || i < at) {
				at = i
			}
		}
		if at < 0 {
			return "", false
		}
		s = s[at:]
		// keep the start line itself: some formats put the recipient on it.
	}
	if len(f.stop) > 0 {
		s = cutAtBoundary(s, f.stop)
	}
	return s, true
}

// cutAtBoundary cuts s at the first line that starts (after blanks) with
// one of the boundary markers.
func cutAtBoundary(s string, stop []string) string {
	off := 0
	for off < len(s) {
		end := strings.IndexByte(s[off:], '\n')
		line := s[off:]
		if end >= 0 {
			line = s[off : off+end]
		}
		t := strings.TrimLeft(line, " \t>-=")
		for _, m := range stop {
			if strings.HasPrefix(t, m) {
				return s[:off]
			}
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	return s
}

// walk is the default line walk over an error section.
func (f *textFormat) walk(section string) []Result {
	var rs []Result
	var diag, pre, also []string
	ended, wantCmd := false, false
	flush := func() {
		if len(rs) > 0 {
			rs[len(rs)-1].Diagnostic = joinDiag(rs[len(rs)-1].Diagnostic, diag)
		}
		diag = diag[:0]
	}
	forLines(section, func(line string) bool {
		t := strings.TrimSpace(line)
		if t == "" {
			return true
		}
		if addr, rest, ok := f.rcpt.match(line, t); ok {
			flush()
			ended = false
			r := Result{Recipient: addr}
			if f.rcpt.keepLine {
				r.Diagnostic = t
			} else {
				r.Diagnostic = strings.TrimSpace(strings.TrimLeft(rest, ":.,; "))
			}
			if f.preDiag && len(pre) > 0 {
				r.Diagnostic = joinDiag(strings.Join(pre, " "), []string{r.Diagnostic})
			}
			rs = append(rs, r)
			return true
		}
		if len(f.diagAlso) > 0 && hasPrefixAny(t, f.diagAlso) && len(also) < 8 {
			also = append(also, t)
			return true
		}
		if wantCmd {
			wantCmd = false
			if len(rs) > 0 && rs[len(rs)-1].Command == "" {
				rs[len(rs)-1].Command = smtpVerb(strings.ToLower(t))
			}
			return true
		}
		if f.cmdAfter != "" && strings.HasPrefix(t, f.cmdAfter) {
			wantCmd, ended = true, true
			return true
		}
		if hasPrefixAny(t, f.diagEnd) {
			ended = true
			return true
		}
		if ended || containsAny(t, f.skip) {
			return true
		}
		if len(rs) == 0 {
			if f.preDiag {
				pre = append(pre, t)
			}
			return true
		}
		diag = append(diag, t)
		return true
	})
	flush()
	if len(also) > 0 {
		for i := range rs {
			rs[i].Diagnostic = joinDiag(rs[i].Diagnostic, also)
		}
	}
	if len(rs) == 0 && f.noRcpt && len(pre) > 0 {
		rs = append(rs, Result{Diagnostic: strings.Join(pre, " ")})
	}
	return dedupe(rs)
}

// hasPrefixAny reports whether s starts with one of ps.
func hasPrefixAny(s string, ps []string) bool {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// match reports whether line (t is its trimmed form) is a recipient line,
// returning the address and the remainder of the line.
func (r *rcptRule) match(line, t string) (addr, rest string, ok bool) {
	// angle lines start at the left margin: an indented "<addr>:" is a
	// continuation line (Postfix folds its diagnostics that way).
	if r.angle && len(t) > 3 && line[0] == '<' {
		if end := strings.IndexByte(t, '>'); end > 0 {
			if a := cleanAddr(t[1:end]); a != "" {
				return a, t[end+1:], true
			}
		}
	}
	if r.indent > 0 && len(line) > r.indent && strings.Count(line[:r.indent], " ") == r.indent && line[r.indent] != ' ' && line[r.indent] != '\t' {
		w, rest, _ := strings.Cut(t, " ")
		if a := cleanAddr(strings.TrimRight(w, ":,;")); a != "" {
			// "user@example.com <other@example.net>: ..." names the
			// address actually refused in angle brackets.
			if strings.HasPrefix(rest, "<") {
				if e := strings.IndexByte(rest, '>'); e > 0 {
					if b := cleanAddr(rest[1:e]); b != "" {
						return b, rest[e+1:], true
					}
				}
			}
			return a, rest, true
		}
	}
	if r.lead {
		w, rest, _ := strings.Cut(t, " ")
		if a := cleanAddr(w); a != "" && (strings.HasSuffix(w, ":") || rest == "" || strings.HasPrefix(rest, "on ") || strings.HasPrefix(rest, "<") || strings.HasPrefix(rest, "(")) {
			// "user@example.com (user@example.com)": Exchange repeats the
			// address as a display name; the repeat is no diagnostic.
			if strings.HasPrefix(rest, "(") {
				if e := strings.IndexByte(rest, ')'); e > 0 && cleanAddr(rest[1:e]) == a {
					rest = strings.TrimSpace(rest[e+1:])
				}
			}
			return a, rest, true
		}
	}
	if r.bare && strings.IndexByte(t, ' ') < 0 {
		if a := cleanAddr(strings.TrimRight(t, ":,;.")); a != "" {
			return a, "", true
		}
	}
	for _, p := range r.prefixes {
		if len(t) >= len(p) && strings.EqualFold(t[:len(p)], p) {
			a, rest := firstAddr(t[len(p):])
			if a != "" {
				return a, rest, true
			}
		}
	}
	for _, p := range r.contains {
		if strings.Contains(t, p) {
			a, rest := firstAddr(t)
			if a != "" {
				return a, rest, true
			}
		}
	}
	return "", "", false
}

// finish completes a Result from its diagnostic: codes, hint, kind, format.
func (f *textFormat) finish(r *Result, delayed bool) {
	r.Format = f.name
	r.Diagnostic = capText(collapseSpace(r.Diagnostic), textDiagLimit)
	low := strings.ToLower(capText(r.Diagnostic, textScanLimit))
	st, rc := diagCodes(r.Diagnostic)
	if r.Status == "" {
		r.Status = st
	}
	if r.ReplyCode == "" {
		r.ReplyCode = rc
	}
	if r.Hint == "" {
		r.Hint = hintIn(low, f.hints)
	}
	if r.Hint == "" && r.ReplyCode == "" {
		r.Hint = hintIn(low, f.hintsBare)
	}
	if r.Hint == "" && len(f.hintsGenericCode) > 0 && (r.Status == "" || strings.HasSuffix(r.Status, ".0")) {
		r.Hint = hintIn(low, f.hintsGenericCode)
	}
	if r.Hint == "" {
		r.Hint = f.hint
	}
	if r.RemoteMTA == "" {
		r.RemoteMTA = remoteHostIn(r.Diagnostic)
	}
	if r.Command == "" {
		r.Command = hintIn(low, f.commands)
	}
	if r.Command == "" {
		r.Command = textCommandIn(low)
	}
	if r.DiagnosticType == "" {
		r.DiagnosticType = "smtp"
	}
	r.Kind = KindBounce
	if r.Action == "delayed" {
		delayed = true
	}
	r.Action = "failed"
	if delayed {
		r.Kind = KindDelayed
		r.Action = "delayed"
	}
	if r.Status == "" {
		// The format states the class of the failure even where the
		// text carries no code: X.0.0 is RFC 3463's "other undefined
		// status" of that class.
		switch {
		case r.ReplyCode != "" && (r.ReplyCode[0] == '4' || r.ReplyCode[0] == '5'):
			r.Status = r.ReplyCode[:1] + ".0.0"
		case f.soft || delayed:
			r.Status = "4.0.0"
		default:
			r.Status = "5.0.0"
		}
	}
}

// fallbackRecipients builds one Result per address in X-Failed-Recipients
// with the whole section as diagnostic.
func fallbackRecipients(h textHeader, section string) []Result {
	v := h.Get("X-Failed-Recipients")
	if v == "" {
		return nil
	}
	var rs []Result
	diag := collapseSpace(section)
	for _, p := range strings.Split(v, ",") {
		if a := cleanAddr(strings.TrimSpace(p)); a != "" {
			rs = append(rs, Result{Recipient: a, Diagnostic: diag})
		}
	}
	return dedupe(rs)
}

// hintIn returns the reason of the first hint phrase found in low (a
// lower-cased diagnostic), or "".
func hintIn(low string, hints []phraseHint) string {
	for _, h := range hints {
		if strings.Contains(low, h.phrase) {
			return h.reason
		}
	}
	return ""
}

// capText returns s cut to at most n bytes, backing off to a UTF-8
// boundary.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// forLines calls fn for each line of s (without the line end, CR removed)
// until fn returns false.
func forLines(s string, fn func(line string) bool) {
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		var line string
		if i < 0 {
			line, s = s, ""
		} else {
			line, s = s[:i], s[i+1:]
		}
		line = strings.TrimSuffix(line, "\r")
		if !fn(line) {
			return
		}
	}
}

// containsAny reports whether s contains one of subs.
func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// joinDiag appends lines to a diagnostic, space separated.
func joinDiag(first string, lines []string) string {
	if len(lines) == 0 {
		return first
	}
	n := len(first)
	for _, l := range lines {
		n += len(l) + 1
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(first)
	for _, l := range lines {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(l)
	}
	return b.String()
}

// dedupe merges repeated recipients into the first occurrence: a format
// that lists an address twice (Exchange's user and administrator blocks,
// Mail.ru's Russian and English halves) gives one result whose diagnostic
// holds both texts. Results without an address are kept as they are.
func dedupe(rs []Result) []Result {
	if len(rs) < 2 {
		return rs
	}
	seen := make(map[string]int, len(rs))
	out := rs[:0]
	for _, r := range rs {
		if r.Recipient == "" {
			out = append(out, r)
			continue
		}
		key := strings.ToLower(r.Recipient)
		j, dup := seen[key]
		if !dup {
			seen[key] = len(out)
			out = append(out, r)
			continue
		}
		d := out[j].Diagnostic
		if r.Diagnostic != "" && len(d) < textDiagLimit && !strings.Contains(d, r.Diagnostic) {
			out[j].Diagnostic = joinDiag(d, []string{r.Diagnostic})
		}
	}
	return out
}

// textCommandPhrases are the free-text formats' own ways of naming the
// SMTP command a remote server refused (lower case), beyond the common
// ones of command.go: DragonFly's "did not like our RCPT TO:", qmail's
// "Connected to ... but sender was rejected", GMX's "after RCPT command",
// X6's "(RCPT TO)".
var textCommandPhrases = []struct{ phrase, command string }{
	{"did not like our rcpt to", "RCPT"},
	{"did not like our final data", "DATA"},
	{"did not like our data", "DATA"},
	{"did not like our mail from", "MAIL"},
	{"did not like our ehlo", "EHLO"},
	{"did not like our helo", "HELO"},
	{"but sender was rejected", "MAIL"},
	{"but my name was rejected", "HELO"},
	{"after rcpt command", "RCPT"},
	{"after mail command", "MAIL"},
	{"after data command", "DATA"},
	{"for text command", "DATA"},
	{"for rcpt command", "RCPT"},
	{"your message (rcpt to)", "RCPT"},
	{"your message (data)", "DATA"},
	{"your message (mail from)", "MAIL"},
}

// textCommandIn returns the SMTP command a lower-cased diagnostic names in
// one of the free-text formats' own phrasings, or "" (command.go then tries
// the common ones).
func textCommandIn(l string) string {
	if l == "" {
		return ""
	}
	for _, p := range textCommandPhrases {
		if strings.Contains(l, p.phrase) {
			return p.command
		}
	}
	return ""
}
