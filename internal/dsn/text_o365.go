package dsn

// Microsoft 365 / Outlook.com non-delivery reports in their current
// layout, when the delivery-status part is missing or unusable: "Your
// message to user@example.com couldn't be delivered.", a one-line cause
// ("user wasn't found at example.com."), the "How to Fix It" advice, and
// far below, in "More Info for Email Admins", "Status code: 550 5.1.10" and
// "Remote Server returned '550 5.1.10 RESOLVER.ADR.RecipientNotFound; ...'".
// The advice is left out of the diagnostic; the admin lines are added.

var o365Format = &textFormat{
	name:    "office365",
	bodyHas: []string{"couldn't be delivered.", "More Info for Email Admins"},
	start:   []string{"Your message to "},
	stop:    []string{"Original Message Details", "Message Hops", "Original Message Headers"},
	rcpt: rcptRule{
		prefixes: []string{"Your message to "},
		keepLine: true,
	},
	diagEnd:  []string{"How to Fix It", "Action Required", "Office 365"},
	diagAlso: []string{"Status code:", "Remote Server returned", "Remote server returned", "Diagnostic information for administrators"},
	hints:    exchange2007Format.hints,
}

func init() { registerText(77, o365Format) }
