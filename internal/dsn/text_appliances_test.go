package dsn

import "testing"

func TestTextAppliances(t *testing.T) {
	runTextCases(t, []textCase{
		{file: "text-mailfoundry-01.eml", format: "mailfoundry", diagHas: "No such user here", want: []textWant{{"zoe@example.org", "5.0.0", "550", ""}}},
		{file: "text-mfilter-01.eml", format: "mfilter", want: []textWant{{"adam@example.com", "5.1.1", "550", ""}}},
		{file: "text-apachejames-01.eml", format: "apachejames", diagHas: "no such user here", want: []textWant{{"bella@james.example.com", "5.0.0", "550", ""}}},
		// Verizon names no recipient: the caller takes it from the original.
		{file: "text-verizon-01.eml", format: "verizon", want: []textWant{{"", "5.0.0", "", "userunknown"}}},
		{file: "text-x6-01.eml", format: "x6", want: []textWant{{"carl@example.org", "5.1.1", "550", ""}}},
		{file: "text-zoho-01.eml", format: "zoho", want: []textWant{{"dana@example.co.jp", "5.1.1", "550", "userunknown"}}},
	})
}
