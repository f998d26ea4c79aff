package dsn

import "testing"

func TestTextOpenSMTPD(t *testing.T) {
	runTextCases(t, []textCase{
		{file: "text-opensmtpd-01.eml", format: "opensmtpd", want: []textWant{
			{"oscar@example.com", "5.2.2", "550", ""},
			{"pat@example.com", "5.0.0", "", "expired"},
		}},
	})
}
