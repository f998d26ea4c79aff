package dsn

import "strings"

// Sendmail-style text bounces without a delivery-status part: Sendmail V5
// and other old sendmails, Active!Hunter, many appliances (X1, X5) and
// sendmail clones. Shapes:
//
//	----- The following addresses had permanent fatal errors -----
//	<user@example.com>                 (or "user@example.com [User unknown]",
//	    (reason: 550 User unknown)      ">>> user@example.com <user@...>")
//	----- Transcript of session follows -----
//	While talking to mx.example.com:
//	>>> RCPT To:<user@example.com>
//	<<< 550 5.1.1 User unknown
//	550 <user@example.com>... User unknown
//	----- Unsent message follows -----
//
// Recipients come from the address list and from the transcript's
// "NNN <user@example.com>... text" lines; a recipient's diagnostic is the
// text after "..." together with the remote reply ("<<<") before it.

var sendmailFormat = &textFormat{
	name:       "sendmail",
	subjectHas: []string{"returned mail:", "returned mail "},
	bodyHas: []string{
		"----- Transcript of session follows -----",
		"The following addresses had permanent fatal errors",
		"The following addresses had transient non-fatal errors",
		"The following addresses had delivery errors",
		"The following addresses had permanent delivery errors",
		"The following addresses had delivery problems",
	},
	stop: []string{
		"Unsent message follows", "Original message follows", "Message header follows",
		"Reporting-MTA:", "Returned message follows", "Original message header follows",
	},
	parse: parseSendmailText,
	// Sendmail's delay warning (DSN "Action: delayed" in text form).
	delayed: []string{"THIS IS A WARNING MESSAGE ONLY", "Warning: could not send message for past"},
	hints: []phraseHint{
		{"host unknown", "hostunknown"},
		{"user unknown", "userunknown"},
		{"cannot send message for", "expired"},
		{"message could not be delivered for", "expired"},
	},
}

// parseSendmailText implements the shapes described above.
func parseSendmailText(f *textFormat, h textHeader, section string) []Result {
	var rs []Result
	pos := map[string]int{}
	idx := func(a string) int {
		if i, ok := pos[strings.ToLower(a)]; ok {
			return i
		}
		return -1
	}
	add := func(r Result) {
		pos[strings.ToLower(r.Recipient)] = len(rs)
		rs = append(rs, r)
	}
	mode := 0            // 1 address list, 2 transcript
	var pending []string // remote replies ("<<<") not yet claimed
	var loose []string   // transcript lines naming no address
	remote, lastCmd := "", ""
	forLines(section, func(line string) bool {
		t := strings.TrimSpace(line)
		if t == "" {
			return true
		}
		tl := strings.Trim(t, "-= ")
		switch {
		case strings.HasPrefix(tl, "The following addresses had") || strings.HasPrefix(tl, "The following recipients had"):
			mode = 1
			return true
		case strings.HasPrefix(tl, "Transcript of session follows") || strings.HasPrefix(tl, "Non-delivered information"):
			mode = 2
			return true
		}
		switch mode {
		case 1:
			if t[0] == '(' {
				if len(rs) == 0 {
					return true
				}
				r := &rs[len(rs)-1]
				if strings.HasPrefix(t, "(expanded from") {
					// A program or file entry ("|/usr/bin/procmail") is
					// known by the address it was expanded from.
					if a, _ := firstAddr(t); a != "" && r.Recipient == "" && idx(a) < 0 {
						r.Recipient = a
						pos[strings.ToLower(a)] = len(rs) - 1
					}
					return true
				}
				r.Diagnostic = joinDiag(r.Diagnostic, []string{strings.Trim(strings.TrimPrefix(t[1:], "reason:"), "() ")})
				return true
			}
			w := strings.TrimPrefix(t, ">>> ")
			word, rest, _ := strings.Cut(w, " ")
			if a := cleanAddr(word); a != "" {
				if idx(a) < 0 {
					add(Result{Recipient: a, Diagnostic: strings.Trim(strings.TrimSpace(rest), "[]")})
				}
				if strings.HasPrefix(strings.TrimSpace(rest), "<") {
					rs[len(rs)-1].Diagnostic = ""
				}
			} else if word[0] == '"' || word[0] == '|' || word[0] == '/' {
				rs = append(rs, Result{}) // named by a following "(expanded from: ...)"
			}
		case 2:
			switch {
			case strings.HasPrefix(t, "While talking to ") || strings.HasPrefix(t, "... while talking to "):
				// V5 "While talking to host:", V8 "... while talking to host.:"
				_, host, _ := strings.Cut(t, "alking to ")
				remote = strings.TrimSuffix(strings.TrimSuffix(host, ":"), ".")
				pending = pending[:0]
			case strings.HasPrefix(t, ">>> "):
				cmd := t[4:]
				lastCmd = smtpVerb(strings.ToLower(cmd))
				if len(cmd) > 8 && strings.EqualFold(cmd[:8], "RCPT To:") {
					pending = pending[:0]
				}
			case strings.HasPrefix(t, "<<< "):
				if len(pending) < 32 {
					pending = append(pending, t[4:])
				}
			default:
				code, rest, _ := strings.Cut(t, " ")
				if who, _, ok := strings.Cut(t, "... "); ok && cleanAddr(who) != "" {
					// "<user@example.com>... Deferred: 421" (no leading code)
					code, rest = "", t
				}
				if code == "" || len(code) == 3 && isDigit(code[0]) && isDigit(code[1]) && isDigit(code[2]) {
					who, text, ok := strings.Cut(rest, "... ")
					if !ok {
						if len(loose) < 32 {
							loose = append(loose, t)
						}
						return true
					}
					// V8 puts the enhanced code before the address:
					// "550 5.1.1 <user@example.com>... User unknown".
					st := ""
					if s, n := statusAt(who, 0); n > 0 {
						st, who = s, strings.TrimSpace(who[n:])
					}
					a := cleanAddr(who)
					if a == "" {
						if code != "" && (code[0] == '4' || code[0] == '5') && len(loose) < 32 {
							loose = append(loose, t)
						}
						return true
					}
					diag := text
					if st != "" {
						diag = code + " " + st + " " + text
					}
					rc := code
					if c, _ := replyAt(text, 0); c != "" {
						rc = c
					}
					// The remote reply, command and host of the current
					// "While talking to" block belong to this recipient only
					// when a reply is waiting for it; "554 <a>... 550 Host
					// unknown" never reached a server.
					cmd, host := "", ""
					if len(pending) > 0 {
						// The remote server's reply comes first and gives
						// the reply code; Sendmail's own summary line (and
						// its enhanced code) follows.
						remoteText := strings.Join(pending, " ")
						// ... unless the server refused the session itself
						// (MAIL FROM, HELO): then the summary's code is the
						// recipient's.
						if _, c := diagCodes(remoteText); c != "" && lastCmd != "MAIL" && lastCmd != "HELO" && lastCmd != "EHLO" {
							rc = c
						}
						diag = joinDiag(remoteText, []string{diag})
						cmd, host = lastCmd, remote
					}
					i := idx(a)
					if i < 0 {
						add(Result{Recipient: a})
						i = len(rs) - 1
					}
					// A "(reason: ...)" from the address list stays first.
					rs[i].Diagnostic = joinDiag(rs[i].Diagnostic, []string{diag})
					rs[i].ReplyCode = rc
					rs[i].RemoteMTA = strings.ToLower(host)
					rs[i].Command = cmd
					pending = pending[:0]
				} else if len(loose) < 32 {
					loose = append(loose, t)
				}
			}
		}
		return true
	})
	// Recipients listed without their own transcript line take the
	// transcript text that names no address.
	for i := range rs {
		if rs[i].ReplyCode == "" && (len(loose) > 0 || len(pending) > 0) {
			rs[i].Diagnostic = joinDiag(rs[i].Diagnostic, append(append([]string(nil), loose...), pending...))
		}
	}
	if len(rs) == 0 && len(loose) > 0 {
		rs = append(rs, Result{Diagnostic: strings.Join(loose, " ")})
	}
	return rs
}

func init() { registerText(80, sendmailFormat) }
