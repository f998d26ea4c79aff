package dsn

import "strings"

// Many text bounces quote RFC 3464 delivery-status fields in their body
// (Sendmail and Postfix reports whose MIME structure was lost or
// flattened, appliances that paste the fields as text). When a text
// format has decoded such a body, the fields are the better source of the
// recipient list, the status code and the remote MTA; the text keeps
// supplying the human diagnostic.

// embeddedDSStart returns the offset in body of the first quoted
// delivery-status field group (Reporting-MTA or Final-Recipient at a line
// start), or -1. The byte pre-check keeps the common case cheap.
func embeddedDSStart(body string) int {
	// Quoted fields follow the notice and precede the returned message.
	body = capText(body, 8192)
	if !strings.Contains(body, "inal-Recipient:") && !strings.Contains(body, "inal-recipient:") && !strings.Contains(body, "INAL-RECIPIENT:") {
		return -1
	}
	best := -1
	for _, m := range []string{"\nReporting-MTA:", "\nReporting-mta:", "\nREPORTING-MTA:", "\nFinal-Recipient:", "\nFinal-recipient:", "\nFINAL-RECIPIENT:", "\nOriginal-Recipient:", "\nOriginal-recipient:"} {
		if i := strings.Index(body, m); i >= 0 && (best < 0 || i < best) {
			best = i + 1
		}
	}
	return best
}

// mergeEmbeddedDS completes text results rs from delivery-status fields
// quoted in body. Recipients follow the fields' order; a text result with
// the same address (or the only text result, when it names no address)
// lends its diagnostic and reply code where the fields have none.
func mergeEmbeddedDS(body string, rs []Result) []Result {
	at := embeddedDSStart(body)
	if at < 0 {
		return rs
	}
	ds := parseDeliveryStatus(body[at:])
	n := 0
	for _, d := range ds {
		if d.Recipient != "" {
			ds[n] = d
			n++
		}
	}
	ds = ds[:n]
	if len(ds) == 0 {
		return rs
	}
	used := make([]bool, len(rs))
	byAddr := make(map[string]int, len(rs))
	for i := len(rs) - 1; i >= 0; i-- {
		byAddr[strings.ToLower(rs[i].Recipient)] = i
	}
	out := make([]Result, 0, len(ds)+len(rs))
	for _, d := range ds {
		j := -1
		if i, ok := byAddr[strings.ToLower(d.Recipient)]; ok && !used[i] {
			j = i
		}
		if j < 0 && len(rs) == 1 && len(ds) == 1 && !used[0] {
			j = 0
		}
		r := d
		if j >= 0 {
			used[j] = true
			t := rs[j]
			if r.Diagnostic == "" || (t.Diagnostic != "" && !strings.ContainsAny(r.Diagnostic, "0123456789") && strings.ContainsAny(t.Diagnostic, "0123456789")) {
				r.Diagnostic = t.Diagnostic
			}
			if r.ReplyCode == "" {
				r.ReplyCode = t.ReplyCode
			}
			if r.RemoteMTA == "" {
				r.RemoteMTA = t.RemoteMTA
			}
			r.Hint = t.Hint
		}
		out = append(out, r)
	}
	for i, t := range rs {
		if !used[i] && t.Recipient != "" {
			out = append(out, t)
		}
	}
	return out
}
