package dsn

import "testing"

func TestTextSendmail(t *testing.T) {
	runTextCases(t, []textCase{
		{file: "text-sendmail-v5.eml", format: "sendmail", want: []textWant{
			{"quinn@example.org", "5.0.0", "550", "userunknown"},
			{"rita@nohost.example", "5.0.0", "550", "hostunknown"},
		}},
		{file: "text-sendmail-classic.eml", format: "sendmail", want: []textWant{
			{"sam@example.org", "5.1.1", "550", "userunknown"},
		}},
		{file: "text-sendmail-delay.eml", format: "sendmail", kind: KindDelayed, diagHas: "Connection timed out", want: []textWant{
			{"kim@example.org", "4.0.0", "", ""},
		}},
		// quoted delivery-status fields supply the status
		{file: "text-dsmerge-01.eml", format: "sendmail", want: []textWant{
			{"ida@example.com", "5.2.1", "550", ""},
		}},
	})
}
