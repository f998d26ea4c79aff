package dsn

// Mail filtering appliances and gateways that write their own text:
//   - MailFoundry: Subject "Message delivery has failed", "Unable to
//     deliver message to: <addr>", "Delivery failed for the following
//     reason:" and the remote reply.
//   - m-FILTER (Digital Arts, X-Mailer "m-FILTER"): Japanese preamble,
//     the address, "-------server message" and the remote reply,
//     "-------SMTP command", "-------original message".
//   - Apache James (mailet bounce): "Error message below:", the reply,
//     "Message details:" with "RCPT TO: addr".
//   - Verizon Wireless MMS gateway (MMSC NDR Administrator): "Message could
//     not be delivered to mobile." without naming the recipient (taken from
//     the returned original).
//   - X6 ("We had trouble delivering your message. Full details follow:"),
//     "The following recipients returned permanent errors: addr. Reason:".
//   - Zoho Mail (X-Mailer "Zoho Mail"): "addr Invalid Address, ERROR_CODE
//     :550, ERROR_CODE :5.1.1 ...".

var mailfoundryFormat = &textFormat{
	name:       "mailfoundry",
	subjectHas: []string{"message delivery has failed"},
	bodyHas:    []string{"Unable to deliver message to:"},
	needBody:   true,
	rcpt:       rcptRule{prefixes: []string{"Unable to deliver message to:"}},
	skip:       []string{"Delivery failed for the following reason:"},
}

var mfilterFormat = &textFormat{
	name:      "mfilter",
	headerHas: []headerMark{{name: "X-Mailer", has: "m-filter"}},
	bodyHas:   []string{"-------server message"},
	start:     []string{"以下のメールアドレスへの送信に失敗しました", "-------server message"},
	stop:      []string{"-------original message", "-------original mail info"},
	rcpt:      rcptRule{bare: true},
	skip:      []string{"-------server message"},
	cmdAfter:  "-------SMTP command",
}

var apacheJamesFormat = &textFormat{
	name:    "apachejames",
	bodyHas: []string{"Error message below:"},
	start:   []string{"Error message below:"},
	rcpt:    rcptRule{prefixes: []string{"RCPT TO:"}},
	preDiag: true,
	skip:    []string{"Error message below:"},
	diagEnd: []string{"Message details:"},
}

var verizonFormat = &textFormat{
	name:     "verizon",
	fromHas:  []string{"@vzwpix.com", "@vtext.com", "mmsc ndr"},
	bodyHas:  []string{"Message could not be delivered to mobile"},
	needBody: true,
	stop:     []string{"Original Message:"},
	preDiag:  true,
	noRcpt:   true,
	hints:    []phraseHint{{"no valid recipients for this mm", "userunknown"}},
}

var x6Format = &textFormat{
	name:    "x6",
	bodyHas: []string{"The following recipients returned permanent errors:"},
	start:   []string{"The following recipients returned permanent errors:"},
	stop:    []string{"The attachment contains the original mail headers"},
	rcpt:    rcptRule{prefixes: []string{"The following recipients returned permanent errors:"}},
}

var zohoFormat = &textFormat{
	name:      "zoho",
	headerHas: []headerMark{{name: "X-Mailer", has: "zoho mail"}},
	fromHas:   []string{"@mail.zoho.", "@zoho.com"},
	bodyHas:   []string{"ERROR_CODE :", "Invalid Address"},
	needBody:  true,
	stop:      []string{"Received:", "Message-ID:", "with SMTP id"},
	rcpt:      rcptRule{lead: true, contains: []string{"ERROR_CODE :", "Invalid Address"}},
	hints:     []phraseHint{{"invalid address", "userunknown"}},
}

func init() {
	registerText(55, mailfoundryFormat, mfilterFormat, apacheJamesFormat, verizonFormat, x6Format, zohoFormat)
}
