package dsn

import "testing"

func TestTextQmail(t *testing.T) {
	runTextCases(t, []textCase{
		{file: "text-qmail-two.eml", format: "qmail", want: []textWant{
			{"dave@example.com", "5.1.1", "", "userunknown"},
			{"erin@nowhere.example", "5.1.2", "", "hostunknown"},
		}},
		{file: "text-qmail-remote.eml", format: "qmail", diagHas: "DMARC policy", want: []textWant{
			{"frank@example.org", "5.7.26", "550", ""},
		}},
	})
}
