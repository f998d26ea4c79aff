package codes

import "strings"

// Match is the answer to Explain and Lookup.
type Match struct {
	// Entry is the most specific entry for the reply: a provider reply
	// selected by its text, a provider's plain reply for its codes, or the
	// generic entry of the enhanced or reply code.
	Entry *Entry
	// Enhanced is the generic registry entry of the enhanced code when it
	// is not Entry itself (nil when none or when Entry is that entry).
	Enhanced *Entry
	// Reply is the generic RFC 5321 entry of the reply code when it is not
	// Entry itself (nil when none or when Entry is that entry).
	Reply *Entry
	// Provider is the provider used for the lookup: the one given, or the
	// one inferred from the text ("" when unknown).
	Provider string
	// Inferred is true when Provider was inferred: from the text, or from
	// a code that only one provider uses (Microsoft's 5.7.708).
	Inferred bool
	// ByText is true when a fragment of the reply text selected Entry.
	ByText bool
	// Approximate is true when the exact enhanced code is not known and
	// Entry is the generic entry of its subject ("5.7.0" for "5.7.999").
	Approximate bool
	// Parsed holds the codes and text read from the input.
	Parsed Parsed
}

// query is one lookup: parsed codes, the text to search and the provider.
type query struct {
	reply, enh string
	text       string
	provider   string // given or known provider; "" when unknown
	inferred   string // provider inferred from the text; "" when none
}

// score rates how well e answers q; -1 means e does not apply. Higher is
// more specific: a matching text fragment outweighs everything, then the
// provider, then the enhanced code, then the reply code.
func (e *Entry) score(q *query) int {
	if e.ReplyCode != "" && q.reply != "" && e.ReplyCode != q.reply {
		return -1
	}
	s := 0
	if e.EnhancedCode != "" && q.enh != "" {
		exact, ranged := e.matchesEnhanced(q.enh)
		switch {
		case exact:
			s += 30
		case ranged:
			s += 25
		default:
			return -1
		}
	}
	if e.ReplyCode != "" && e.ReplyCode == q.reply {
		s += 20
	}
	sameProvider := false
	if e.Provider != ProviderGeneric {
		if q.provider != "" && q.provider != e.Provider {
			return -1
		}
		sameProvider = e.Provider == q.provider || e.Provider == q.inferred
		if sameProvider {
			s += 50
		}
	}
	if len(e.Match) > 0 {
		best := 0
		for _, m := range e.Match {
			if len(m) > best && containsFold(q.text, m) {
				best = len(m)
			}
		}
		if best > 0 {
			return s + 1000 + best
		}
		if e.ProviderDefault && sameProvider && s > 50 {
			return s
		}
		return -1
	}
	if e.Provider != ProviderGeneric && !sameProvider {
		return -1
	}
	if s == 0 {
		return -1
	}
	return s
}

// best returns the highest-scoring entry for q, or nil. It does not
// allocate.
func (ix *index) best(q *query) (*Entry, int) {
	var top *Entry
	topScore := -1
	consider := func(list []*Entry) {
		for _, e := range list {
			if sc := e.score(q); sc > topScore {
				top, topScore = e, sc
			}
		}
	}
	if q.enh == "" && q.reply == "" {
		consider(ix.withText)
		return top, topScore
	}
	if q.enh != "" {
		consider(ix.byEnhanced[q.enh])
		consider(ix.ranged)
	}
	switch {
	case q.reply != "" && q.enh != "":
		// entries with an enhanced code were considered above
		consider(ix.replyOnly[q.reply])
	case q.reply != "":
		consider(ix.byReply[q.reply])
	}
	consider(ix.textOnly)
	return top, topScore
}

// approximate returns the generic entry of the subject of an unknown
// enhanced code: "5.7.0" for "5.7.999". It does not allocate.
func (ix *index) approximate(enh string) *Entry {
	cls, subj, _, ok := splitStatus(enh)
	if !ok || len(subj) > 3 {
		return nil
	}
	var buf [8]byte
	b := append(buf[:0], cls...)
	b = append(b, '.')
	b = append(b, subj...)
	b = append(b, '.', '0')
	return ix.generic[string(b)]
}

// normProvider maps "", "other" and "generic" to "" (unknown) and
// lower-cases the rest.
func normProvider(p string) string {
	switch p {
	case "", "other", "generic", "unknown":
		return ""
	case ProviderGoogle, ProviderMicrosoft, ProviderYahoo, ProviderApple:
		return p
	}
	return strings.ToLower(strings.TrimSpace(p))
}

// Explain reads a pasted reply (one line or a multi-line reply, with or
// without surrounding bounce text), finds its reply code, enhanced code
// and text, and returns the most specific entry. provider names the
// receiving provider when known ("google", "microsoft", "yahoo", "apple",
// "mimecast", ...); when it is "" or "other" the provider is inferred from
// host names and markers in the text ("gsmtp", "outlook.com", "yahoo",
// ...). A given provider excludes other providers' entries; an inferred
// one only prefers its own. ok is false when neither a code nor a known
// reply text is found.
func Explain(text, provider string) (Match, bool) {
	ix := get()
	clean := cleanText(text)
	reply, enh, end := parseCodes(clean)
	q := query{reply: reply, enh: enh, text: clean, provider: normProvider(provider)}
	m := Match{Parsed: Parsed{ReplyCode: reply, EnhancedCode: enh, Text: strings.Trim(clean[end:], " \t:-")}}
	m.Provider = q.provider
	if q.provider == "" {
		q.inferred = InferProvider(clean)
		m.Provider, m.Inferred = q.inferred, q.inferred != ""
	}
	return ix.finish(&q, m)
}

// Lookup explains a bare code: "451 4.3.0", "451-4.3.0", "4.3.0" or
// "451", optionally for one provider (its plain reply for those codes is
// preferred when it has one). ok is false when code is not a reply code,
// an enhanced code or a pair of them, or when nothing is known about it.
func Lookup(code, provider string) (Match, bool) {
	code = strings.TrimSpace(code)
	reply, enh, end := parseCodes(code)
	if (reply == "" && enh == "") || strings.TrimSpace(code[end:]) != "" {
		return Match{}, false
	}
	q := query{reply: reply, enh: enh, provider: normProvider(provider)}
	m := Match{Parsed: Parsed{ReplyCode: reply, EnhancedCode: enh}, Provider: q.provider}
	return get().finish(&q, m)
}

func (ix *index) finish(q *query, m Match) (Match, bool) {
	e, sc := ix.best(q)
	if q.provider == "" && q.enh != "" && (e == nil || e.replyOnlyGeneric()) {
		if p := ix.soleProvider(q.enh); p != "" && p != q.inferred {
			q2 := *q
			q2.inferred = p
			if e2, sc2 := ix.best(&q2); e2 != nil && !e2.replyOnlyGeneric() {
				e, sc = e2, sc2
				m.Provider, m.Inferred = p, true
			}
		}
	}
	if q.enh != "" && (e == nil || e.replyOnlyGeneric()) {
		if a := ix.approximate(q.enh); a != nil {
			e, m.Approximate, sc = a, true, 0
		}
	}
	if e == nil {
		return m, false
	}
	m.Entry = e
	m.ByText = sc >= 1000
	if q.enh != "" {
		if g := ix.generic[q.enh]; g != nil && g != e {
			m.Enhanced = g
		}
	}
	if q.reply != "" {
		if g := ix.generic[q.reply]; g != nil && g != e {
			m.Reply = g
		}
	}
	return m, true
}

// ForResult returns the entry that explains one decoded bounce result:
// status is its RFC 3463 code ("5.1.1", may be ""), replyCode its RFC 5321
// code ("550", may be ""), diagnostic the Diagnostic-Code text and
// provider the dsn.Provider string ("google", "microsoft", "yahoo",
// "apple", "other" or ""). Codes missing from status and replyCode are
// read from the diagnostic, as is a more specific enhanced code of the same
// class when status is only "4.0.0" or "5.0.0". It picks the entry as Explain does and does not
// allocate unless the diagnostic holds a multi-line reply.
func ForResult(status, replyCode, diagnostic, provider string) (*Entry, bool) {
	ix := get()
	text := cleanText(diagnostic)
	q := query{reply: replyCode, enh: status, text: text, provider: normProvider(provider)}
	if q.enh != "" {
		if _, _, _, ok := splitStatus(q.enh); !ok {
			q.enh = ""
		}
	}
	if q.reply == "" || q.enh == "" || unspecific(q.enh) {
		r, e, _ := parseCodes(text)
		if q.reply == "" {
			q.reply = r
		}
		// The diagnostic's own code is used when the status field is
		// missing or only says "5.0.0" while the server named e.g. 5.1.1.
		if q.enh == "" || (e != "" && unspecific(q.enh) && e[0] == q.enh[0]) {
			q.enh = e
		}
	}
	if q.provider == "" {
		q.inferred = InferProvider(text)
	}
	e, _ := ix.best(&q)
	if q.provider == "" && q.enh != "" && (e == nil || e.replyOnlyGeneric()) {
		if p := ix.soleProvider(q.enh); p != "" && p != q.inferred {
			q.inferred = p
			if e2, _ := ix.best(&q); e2 != nil && !e2.replyOnlyGeneric() {
				e = e2
			}
		}
	}
	if q.enh != "" && (e == nil || e.replyOnlyGeneric()) {
		if a := ix.approximate(q.enh); a != nil {
			e = a
		}
	}
	return e, e != nil
}

// soleProvider returns the provider when every entry carrying the enhanced
// code enh (exactly or in a range) belongs to that one provider and no
// generic entry has it: a provider's own code such as Microsoft's 5.7.708.
// It returns "" otherwise and does not allocate.
func (ix *index) soleProvider(enh string) string {
	if ix.generic[enh] != nil {
		return ""
	}
	p := ""
	for _, list := range [2][]*Entry{ix.byEnhanced[enh], ix.ranged} {
		for _, e := range list {
			if exact, ranged := e.matchesEnhanced(enh); !exact && !ranged {
				continue
			}
			if e.Provider == ProviderGeneric || (p != "" && p != e.Provider) {
				return ""
			}
			p = e.Provider
		}
	}
	return p
}

// unspecific reports whether an enhanced code is "X.0.0", which says only
// the class.
func unspecific(enh string) bool {
	return len(enh) == 5 && enh[1:] == ".0.0"
}

// replyOnlyGeneric reports whether e is the generic entry of a bare reply
// code; an enhanced code's subject says more than it.
func (e *Entry) replyOnlyGeneric() bool {
	return e.Provider == ProviderGeneric && e.EnhancedCode == "" && len(e.Match) == 0
}

// Get returns the entry with the given ID.
func Get(id string) (*Entry, bool) {
	e, ok := get().byID[id]
	return e, ok
}

// Filter selects entries for List. Empty fields match everything.
type Filter struct {
	Provider string // "generic", "google", "microsoft", ...
	Group    string // data file: "enhanced", "reply", "google", ...
	Class    string // "soft" or "hard"
	Label    string // report label, e.g. "Temporary failure" (case-insensitive)
	Reason   string // classification reason, e.g. "mailboxfull"
	// Q searches, without case, the ID, codes, reply text, title and
	// meaning. A code written "451-4.3.0" also matches "451 4.3.0".
	Q string
}

// List returns the entries that pass f, in data order: enhanced codes,
// reply codes, then providers. The slice is new; the entries are shared.
func List(f Filter) []*Entry {
	ix := get()
	q := strings.ToLower(strings.TrimSpace(f.Q))
	qAlt := strings.Replace(q, "-", " ", 1)
	var out []*Entry
	for _, e := range ix.entries {
		if f.Provider != "" && !strings.EqualFold(e.Provider, f.Provider) {
			continue
		}
		if f.Group != "" && e.Group != f.Group {
			continue
		}
		if f.Class != "" && e.Class != f.Class {
			continue
		}
		if f.Label != "" && !strings.EqualFold(e.Label, f.Label) {
			continue
		}
		if f.Reason != "" && e.Reason != f.Reason {
			continue
		}
		if q != "" && !e.search(q) && !e.search(qAlt) {
			continue
		}
		out = append(out, e)
	}
	return out
}

func (e *Entry) search(q string) bool {
	return containsFold(e.ID, q) || containsFold(e.Code(), q) || containsFold(e.ReplyText, q) ||
		containsFold(e.Title, q) || containsFold(e.Meaning, q)
}

// WithCode returns every entry that carries the code: for "451 4.3.0" the
// provider replies with those codes plus the generic entries of 4.3.0 and
// 451; for "4.3.0" every entry with that enhanced code; for "451" every
// entry with that reply code. The generic entries come first. ok is false
// when code is not a code.
func WithCode(code string) ([]*Entry, bool) {
	ix := get()
	code = strings.TrimSpace(code)
	reply, enh, end := parseCodes(code)
	if (reply == "" && enh == "") || strings.TrimSpace(code[end:]) != "" {
		return nil, false
	}
	var out []*Entry
	seen := map[*Entry]bool{}
	add := func(e *Entry) {
		if e != nil && !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	if enh != "" {
		add(ix.generic[enh])
	}
	if reply != "" {
		add(ix.generic[reply])
	}
	if enh != "" {
		for _, list := range [][]*Entry{ix.byEnhanced[enh], ix.ranged} {
			for _, e := range list {
				if exact, ranged := e.matchesEnhanced(enh); (exact || ranged) && (reply == "" || e.ReplyCode == "" || e.ReplyCode == reply) {
					add(e)
				}
			}
		}
	} else {
		for _, e := range ix.byReply[reply] {
			add(e)
		}
	}
	return out, true
}

// providerHints maps text markers to the provider that writes them. They
// are checked in order; the first found wins.
var providerHints = []struct{ hint, provider string }{
	{"gsmtp", ProviderGoogle},
	{"google.com", ProviderGoogle},
	{"googlemail.com", ProviderGoogle},
	{"gmail", ProviderGoogle},
	{"protection.outlook.com", ProviderMicrosoft},
	{"outlook.com", ProviderMicrosoft},
	{"hotmail", ProviderMicrosoft},
	{"live.com", ProviderMicrosoft},
	{"messaging.microsoft.com", ProviderMicrosoft},
	{"microsoft", ProviderMicrosoft},
	{"office365", ProviderMicrosoft},
	{"yahoodns.net", ProviderYahoo},
	{"yahooinc.com", ProviderYahoo},
	{"yahoo", ProviderYahoo},
	{"aol.com", ProviderYahoo},
	{"icloud.com", ProviderApple},
	{"apple.com", ProviderApple},
	{"mimecast", "mimecast"},
	{"pphosted.com", "proofpoint"},
	{"proofpoint", "proofpoint"},
	{"barracuda", "barracuda"},
	{"yandex", "yandex"},
	{"mail.ru", "mailru"},
	{"zoho", "zoho"},
	{"comcast", "comcast"},
	{"gmx.", "gmx"},
	{"t-online.de", "tonline"},
	{"web.de", "gmx"},
}

// InferProvider guesses the provider that wrote a reply from host names
// and markers in its text ("gsmtp" for Google, "outlook.com" for
// Microsoft, ...). It returns "" when nothing points to a provider.
func InferProvider(text string) string {
	for _, h := range providerHints {
		if containsFold(text, h.hint) {
			return h.provider
		}
	}
	return ""
}
