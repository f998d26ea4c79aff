package dsn

import "strings"

// Postfix text notifications without a delivery-status part (older
// Postfix, "notify_classes" reports and providers that strip the report):
// "This is the Postfix program at host X." / "This is the mail system at
// host X.", then "<user@example.com>: error text" with continuation lines
// indented. Postfix's SMTP server error notice ("Postfix SMTP server:
// errors from ...", notify_classes=protocol,resource,software) carries a
// transcript instead: " In:  RCPT TO:<user@example.com>", " Out: 451 4.3.0
// Error: queue file write error".

var postfixFormat = &textFormat{
	name:    "postfix",
	bodyHas: []string{"This is the Postfix program at host", "This is the mail system at host", "I'm sorry to have to inform you that the message returned"},
	fromHas: []string{"(mail delivery system)"},
	start:   []string{"This is the Postfix program", "This is the mail system at host", "I'm sorry to have to inform you that the message returned"},
	stop:    []string{"Delivery report unavailable", "Undelivered message headers", "Undelivered message follows", "Reporting-MTA:", "From MAILER-DAEMON"},
	rcpt:    rcptRule{angle: true},
	delayed: []string{"THIS IS A WARNING ONLY", "Your message could not be delivered for more than"},
}

var postfixSMTPDFormat = &textFormat{
	name:       "postfix",
	subjectHas: []string{"postfix smtp server: errors from"},
	bodyHas:    []string{"Transcript of session follows."},
	needBody:   true,
	start:      []string{"Transcript of session follows."},
	parse:      parseSMTPDTranscript,
}

// parseSMTPDTranscript reads a Postfix server transcript: the recipients
// of "In:  RCPT TO:<...>" and the last failure reply "Out: 4xx/5xx ...".
func parseSMTPDTranscript(f *textFormat, h textHeader, section string) []Result {
	var rcpts []string
	var last string
	prev := ""
	forLines(section, func(line string) bool {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "In:"):
			prev = "in"
			cmd := strings.TrimSpace(t[3:])
			if len(cmd) > 8 && strings.EqualFold(cmd[:8], "RCPT TO:") {
				if a, _ := firstAddr(cmd[8:]); a != "" {
					rcpts = append(rcpts, a)
				}
			}
		case strings.HasPrefix(t, "Out:"):
			prev = "out"
			reply := strings.TrimSpace(t[4:])
			if len(reply) > 3 && (reply[0] == '4' || reply[0] == '5') {
				last = reply
			}
		case prev == "out" && last != "" && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")):
			last += " " + t
		}
		return true
	})
	if last == "" {
		return nil
	}
	if len(rcpts) == 0 {
		return []Result{{Diagnostic: last}}
	}
	rs := make([]Result, 0, len(rcpts))
	for _, a := range rcpts {
		rs = append(rs, Result{Recipient: a, Diagnostic: last})
	}
	return dedupe(rs)
}

func init() { registerText(60, postfixFormat, postfixSMTPDFormat) }
