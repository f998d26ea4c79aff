package dsn

import "strings"

// RFC 5965 Abuse Reporting Format: a multipart/report with
// report-type=feedback-report whose message/feedback-report part names the
// Feedback-Type (§3.1) and, optionally, Original-Rcpt-To (§3.2) and
// Removal-Recipient (RFC 6650 §...); the complained-about recipient is
// Original-Rcpt-To, else Removal-Recipient, else the returned original's To.
// Also Apple Mail's one-click unsubscribe notice (X-Apple-Unsubscribe),
// which complains on behalf of its From address.

func init() {
	register(Recogniser{
		Name:  "arf",
		Order: 5,
		Detect: func(m *message) bool {
			if m.feedback != nil {
				return true
			}
			if m.root.ctype == "multipart/report" && strings.EqualFold(m.root.param("report-type"), "feedback-report") {
				return true
			}
			if strings.EqualFold(strings.TrimSpace(m.hdr.get("x-apple-unsubscribe")), "true") {
				return true
			}
			// A feedback report whose fields sit in a text part (senders
			// that do not label the part message/feedback-report).
			t := m.lowerText()
			return strings.Contains(t, "\nfeedback-type:") && (strings.Contains(t, "\nuser-agent:") || strings.Contains(t, "\nversion:"))
		},
		Parse: parseARF,
	})
}

// parseARF decodes an ARF report into one complaint per complained-about
// recipient.
func parseARF(m *message) ([]Result, error) {
	if m.feedback == nil && strings.EqualFold(strings.TrimSpace(m.hdr.get("x-apple-unsubscribe")), "true") {
		a := cleanAddress(m.from)
		return []Result{{Kind: KindComplaint, Recipient: a, FeedbackType: "opt-out"}}, nil
	}
	var (
		ftype        string
		rcpts        []string
		removal      []string
		reportingMTA string
		sourceIP     string
	)
	var fields string
	if m.feedback != nil {
		fields = string(m.feedback.text())
	} else if i := strings.Index(m.lowerText(), "\nfeedback-type:"); i >= 0 {
		fields = m.bodyText()[i+1:]
	}
	if fields != "" {
		dsFields(fields, func(name, value string, _ bool) {
			switch name {
			case "feedback-type":
				if ftype == "" {
					ftype = lowerASCII(strings.TrimSpace(value))
				}
			case "original-rcpt-to":
				rcpts = append(rcpts, value)
			case "removal-recipient":
				removal = append(removal, value)
			case "reporting-mta":
				reportingMTA = typedValue(value)
			case "source-ip":
				sourceIP = value
			}
		})
	}
	if ftype == "" {
		ftype = "abuse"
	}
	if len(rcpts) == 0 {
		rcpts = removal
	}
	if len(rcpts) == 0 && m.origPart != nil {
		// Microsoft's JMRP reports name the complainant in the returned
		// original's X-HmXmrOriginalRecipient header.
		var oh header
		if len(m.origPart.children) > 0 {
			oh = m.origPart.children[0].hdr
		} else {
			oh, _ = parseHeader(trimLeadingBlank(m.origPart.text()))
		}
		if v := oh.get("x-hmxmroriginalrecipient"); v != "" {
			rcpts = append(rcpts, v)
		}
	}
	if len(rcpts) == 0 {
		o := m.originalOf()
		for _, a := range strings.Split(o.To, ",") {
			if c := cleanAddress(a); c != "" {
				rcpts = append(rcpts, c)
				break
			}
		}
	}
	if len(rcpts) == 0 {
		rcpts = []string{""}
	}
	res := make([]Result, 0, len(rcpts))
	for _, a := range rcpts {
		res = append(res, Result{
			Kind:         KindComplaint,
			Recipient:    a,
			FeedbackType: ftype,
			ReportingMTA: reportingMTA,
			ReceivedFrom: sourceIP,
		})
	}
	return res, nil
}
