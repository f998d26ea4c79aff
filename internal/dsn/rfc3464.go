package dsn

import (
	"strings"
	"time"
)

// RFC 3464 delivery status notifications carried in an RFC 6522
// multipart/report (message/delivery-status), and their RFC 6533
// internationalised form (message/global-delivery-status). Also reports
// whose delivery-status fields sit in a text part or the body itself.

func init() {
	register(Recogniser{
		Name:   "rfc3464",
		Order:  10,
		Detect: func(m *message) bool { return len(m.dsParts) > 0 },
		Parse:  parseRFC3464,
	})
	register(Recogniser{
		Name:  "rfc3464-text",
		Order: 30,
		Detect: func(m *message) bool {
			t := m.lowerText()
			return (strings.Contains(t, "\nfinal-recipient:") || strings.Contains(t, "\noriginal-recipient:")) &&
				(strings.Contains(t, "\nstatus:") || strings.Contains(t, "\naction:"))
		},
		Parse: func(m *message) ([]Result, error) {
			t := m.bodyText()
			i := strings.Index(m.lowerText(), "\nreporting-mta:")
			if i < 0 {
				i = indexAny(m.lowerText(), []string{"\nfinal-recipient:", "\noriginal-recipient:"})
			}
			res := parseDeliveryStatus(t[i+1:])
			if len(res) > 0 {
				enrichFromText(m, res)
			}
			return res, nil
		},
	})
}

// parseRFC3464 decodes every delivery-status part of m.
func parseRFC3464(m *message) ([]Result, error) {
	var res []Result
	for _, p := range m.dsParts {
		res = append(res, parseDeliveryStatus(string(p.text()))...)
	}
	if len(res) == 0 {
		return nil, nil
	}
	enrichFromText(m, res)
	return res, nil
}

// dsFields reads "Name: value" fields (RFC 3464 §2.1, RFC 822 syntax with
// folding) from s; groups are separated by blank lines. The callback gets
// the lower-case name, the unfolded value and whether a blank line preceded
// the field.
func dsFields(s string, fn func(name, value string, newGroup bool)) {
	var name, value string
	var fold []string
	blank := false
	pendingBlank := false
	flush := func() {
		if name != "" {
			if len(fold) > 0 {
				value = value + " " + strings.Join(fold, " ")
			}
			fn(name, value, pendingBlank)
			pendingBlank = false
		}
		name, value = "", ""
		fold = fold[:0]
	}
	for len(s) > 0 {
		nl := strings.IndexByte(s, '\n')
		var line string
		if nl < 0 {
			line, s = s, ""
		} else {
			line, s = s[:nl], s[nl+1:]
		}
		if strings.TrimSpace(line) == "" {
			flush()
			blank = true
			continue
		}
		if (line[0] == ' ' || line[0] == '\t') && name != "" {
			fold = append(fold, strings.TrimSpace(line))
			continue
		}
		colon := strings.IndexByte(line, ':')
		if colon <= 0 || !isFieldName([]byte(line[:colon])) {
			continue
		}
		flush()
		if blank {
			pendingBlank = true
			blank = false
		}
		name = fieldNameString(line[:colon])
		value = strings.TrimSpace(line[colon+1:])
	}
	flush()
}

// parseDeliveryStatus parses the body of a message/delivery-status part:
// the per-message fields (RFC 3464 §2.2) and one Result per per-recipient
// group (§2.3). A group opens at a blank line or at a second
// Final-Recipient, so reports that omit the blank lines still split.
func parseDeliveryStatus(s string) []Result {
	var (
		res                       []Result
		reporting, receivedFrom   string
		arrival                   time.Time
		cur                       *Result
		curHasFinal, curHasOrigin bool
	)
	open := func() {
		res = append(res, Result{})
		cur = &res[len(res)-1]
		curHasFinal, curHasOrigin = false, false
	}
	dsFields(s, func(name, value string, newGroup bool) {
		switch name {
		case "reporting-mta":
			reporting = typedValue(value)
			return
		case "received-from-mta":
			receivedFrom = typedValue(value)
			return
		case "arrival-date":
			arrival = parseDate(value)
			return
		case "original-envelope-id", "dsn-gateway", "x-postfix-queue-id", "x-postfix-sender", "x-original-message-id":
			return
		}
		if cur == nil {
			// Any per-recipient field opens the first recipient: some
			// reports put Diagnostic-Code or Status before Final-Recipient,
			// without a blank line after the per-message fields.
			if !perRecipientField(name) {
				return
			}
			open()
		} else if newGroup && (curHasFinal || curHasOrigin) && perRecipientField(name) {
			open()
		}
		switch name {
		case "final-recipient":
			if curHasFinal {
				open()
			}
			curHasFinal = true
			cur.Recipient = typedValue(value)
		case "original-recipient":
			if curHasOrigin && curHasFinal {
				open()
			}
			curHasOrigin = true
			cur.OriginalRecipient = typedValue(value)
		case "x-actual-recipient":
			if cur.Recipient == "" || !strings.Contains(cur.Recipient, "@") {
				cur.Recipient = typedValue(value)
			}
		case "action":
			cur.Action = lowerASCII(strings.TrimSpace(strings.SplitN(value, " ", 2)[0]))
		case "status":
			cur.Status = value
		case "remote-mta":
			cur.RemoteMTA = cleanHost(typedValue(value))
		case "diagnostic-code":
			t, v := splitTyped(value)
			cur.DiagnosticType = lowerASCII(t)
			if cur.Diagnostic == "" {
				cur.Diagnostic = v
			} else {
				cur.Diagnostic += " " + v
			}
		case "x-powermta-bouncecategory":
			if cur.Hint == "" {
				cur.Hint = powerMTACategories[lowerASCII(strings.TrimSpace(value))]
			}
		case "last-attempt-date":
			cur.LastAttemptDate = parseDate(value)
		case "will-retry-until":
			cur.WillRetryUntil = parseDate(value)
		}
	})
	out := res[:0]
	for i := range res {
		r := res[i]
		if r.Recipient == "" && r.OriginalRecipient == "" && r.Status == "" && r.Action == "" {
			continue
		}
		if r.OriginalRecipient != "" && (cleanAddress(r.Recipient) == "" || isRouteOrLocal(r.Recipient)) && !isRouteOrLocal(r.OriginalRecipient) {
			// A source route ("@relay:user@host") or a host without a dot in
			// Final-Recipient: the Original-Recipient is what was sent.
			r.Recipient = r.OriginalRecipient
		}
		if r.Diagnostic == "" {
			// "Status: 4.0.0 (cat.example.net: host name lookup failure)":
			// the comment is the only reason the report gives.
			if o := strings.IndexByte(r.Status, '('); o > 0 {
				if c := strings.TrimSpace(strings.Trim(strings.TrimSpace(r.Status[o:]), "()")); len(c) > 3 {
					r.Diagnostic = c
				}
			}
		}
		r.ReportingMTA = reporting
		r.ReceivedFrom = receivedFrom
		r.ArrivalDate = arrival
		r.Kind = kindOfAction(r.Action, r.Status)
		out = append(out, r)
	}
	return out
}

// cleanHost reduces a Remote-MTA value to the host: "mx.example.jp.
// (192.0.2.1, the server for the domain example.jp.)" gives "mx.example.jp",
// "[192.0.2.1]" gives "192.0.2.1".
func cleanHost(v string) string {
	v = strings.TrimSpace(v)
	if i := strings.IndexAny(v, " \t("); i > 0 {
		v = v[:i]
	}
	v = strings.Trim(v, "[]<>")
	return lowerASCII(strings.TrimSuffix(v, "."))
}

// isRouteOrLocal reports an address that is a source route or whose
// domain has no dot.
func isRouteOrLocal(a string) bool {
	a = typedValue(a)
	if strings.Contains(a, ":") && strings.Contains(a, "@") && strings.Index(a, "@") < strings.Index(a, ":") {
		return true
	}
	at := strings.LastIndexByte(a, '@')
	return at >= 0 && !strings.Contains(a[at:], ".")
}

// powerMTACategories maps the bounce categories PowerMTA writes in its
// reports (X-PowerMTA-BounceCategory, one per recipient, from its own
// classification of the reply) to a hint. Only the categories that name
// the mailbox's or the domain's state are used: the broad ones
// ("policy-related", "spam-related", "routing-errors", "other") would say
// less than the reply text itself.
var powerMTACategories = map[string]string{
	"bad-mailbox":      "userunknown",
	"bad-domain":       "hostunknown",
	"inactive-mailbox": "suspend",
	"quota-issues":     "mailboxfull",
	"message-expired":  "expired",
}

// perRecipientField reports the per-recipient fields of RFC 3464 §2.3
// (and the common X-Actual-Recipient).
func perRecipientField(name string) bool {
	switch name {
	case "final-recipient", "original-recipient", "action", "status", "remote-mta", "diagnostic-code",
		"last-attempt-date", "will-retry-until", "final-log-id", "x-actual-recipient", "x-powermta-bouncecategory":
		return true
	}
	return false
}

// kindOfAction maps an Action (RFC 3464 §2.3.3) to a kind; without an
// Action the status class decides.
func kindOfAction(action, status string) Kind {
	switch action {
	case "delayed":
		return KindDelayed
	case "delivered", "relayed", "expanded", "deliverable":
		// "deliverable" / "undeliverable" are Postfix's address
		// verification reports (sendmail -bv, verify(8)).
		return KindDelivered
	case "failed", "undeliverable":
		return KindBounce
	}
	st := cleanStatus(status)
	if st != "" && st[0] == '2' {
		return KindDelivered
	}
	return KindBounce
}

// typedValue strips the address-type or MTA-name-type prefix ("rfc822;",
// "dns;") of a field value.
func typedValue(v string) string {
	_, val := splitTyped(v)
	return strings.TrimSpace(val)
}

// splitTyped splits "type; value" into its parts (RFC 3464 §2.1.2); a value
// without a type prefix returns "" as type.
func splitTyped(v string) (string, string) {
	semi := strings.IndexByte(v, ';')
	if semi < 0 || semi > 20 {
		return "", strings.TrimSpace(v)
	}
	t := strings.TrimSpace(v[:semi])
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(isAlpha(c) || isDigit(c) || c == '-' || c == '_') {
			return "", strings.TrimSpace(v)
		}
	}
	return t, strings.TrimSpace(v[semi+1:])
}

// parseDate parses an RFC 5322 date-time as found in DSN fields; it returns
// the zero time when the value cannot be read.
func parseDate(v string) time.Time {
	v = strings.TrimSpace(v)
	if i := strings.IndexByte(v, '('); i > 0 {
		v = strings.TrimSpace(v[:i])
	}
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, v); err == nil {
			return t
		}
	}
	return time.Time{}
}

var dateLayouts = []string{
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04:05 MST",
	"2 Jan 2006 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04 -0700",
	"Mon, 2 Jan 06 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04:05 -0700 MST",
	"Mon, 02 Jan 2006 15:04:05 -0700",
}

// matchResult returns the result of text for the same recipient as r (the
// i-th of n), or by position when the counts agree, or nil.
func matchResult(text []Result, r *Result, i, n int) *Result {
	ra := lowerASCII(cleanAddress(r.Recipient))
	for j := range text {
		if ra != "" && lowerASCII(cleanAddress(text[j].Recipient)) == ra {
			return &text[j]
		}
	}
	if len(text) == n && i < len(text) {
		return &text[i]
	}
	return nil
}

// uninformative reports a diagnostic that says nothing a reader could use:
// empty, or without a single word ("255", "5.0.0").
func uninformative(d string) bool {
	letters := 0
	for i := 0; i < len(d); i++ {
		if isAlpha(d[i]) || d[i] >= 0x80 {
			letters++
		}
	}
	return letters < 3
}

// enrichFromText completes delivery-status results from the human-readable
// part: a text format that also matches the message supplies diagnostics
// the report lacks (many MTAs put the remote reply only in the text).
func enrichFromText(m *message, res []Result) {
	need := false
	for i := range res {
		if uninformative(res[i].Diagnostic) || res[i].Recipient == "" {
			need = true
		}
	}
	if !need {
		return
	}
	var text []Result
	for i := range registry {
		r := &registry[i]
		if r.Order < 100 || r.Order >= 900 || !r.Detect(m) {
			continue
		}
		text, _ = r.Parse(m)
		if len(text) > 0 {
			break
		}
	}
	loose := parseLoose(m, &genericFormat)
	if len(text) == 0 {
		text = loose
	}
	for i := range res {
		r := &res[i]
		src := matchResult(text, r, i, len(res))
		if src == nil {
			continue
		}
		if l := matchResult(loose, r, i, len(res)); l != nil && len(l.Diagnostic) > len(src.Diagnostic) &&
			strings.Contains(l.Diagnostic, src.Diagnostic) {
			// The lenient reader kept more of the recipient's block (a
			// "mail.local: unknown user" line before the reply): same text,
			// more context.
			cp := *src
			cp.Diagnostic = l.Diagnostic
			src = &cp
		}
		if r.Recipient == "" || cleanAddress(r.Recipient) == "" {
			r.Recipient = src.Recipient
		}
		if uninformative(r.Diagnostic) && src.Diagnostic != "" && src.Diagnostic != r.Diagnostic {
			// "Diagnostic-Code: X-Unix; 255": the text says more.
			r.Diagnostic = strings.TrimSpace(src.Diagnostic + " " + r.Diagnostic)
		}
		if r.Hint == "" {
			r.Hint = src.Hint
		}
		if r.RemoteMTA == "" {
			r.RemoteMTA = src.RemoteMTA
		}
	}
}
