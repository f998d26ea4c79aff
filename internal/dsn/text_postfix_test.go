package dsn

import "testing"

func TestTextPostfix(t *testing.T) {
	runTextCases(t, []textCase{
		{file: "text-postfix-01.eml", format: "postfix", diagHas: "in reply to RCPT TO command", want: []textWant{{"leo@example.com", "5.1.1", "550", ""}}},
		{file: "text-postfix-smtpd.eml", format: "postfix", want: []textWant{{"mia@example.net", "4.3.1", "452", ""}}},
	})
}
