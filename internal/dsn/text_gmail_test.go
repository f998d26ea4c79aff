package dsn

import "testing"

func TestTextGmail(t *testing.T) {
	runTextCases(t, []textCase{
		{file: "text-gmail-01.eml", format: "gmail", want: []textWant{{"ivan@example.org", "5.1.1", "550", ""}}},
		{file: "text-gmail-delay.eml", format: "gmail", kind: KindDelayed, want: []textWant{{"judy@example.com", "4.0.0", "", "expired"}}},
		{file: "text-gmail-notice.eml", format: "gmail", diagHas: "Address rejected", want: []textWant{{"lena@example.de", "5.1.0", "550", "userunknown"}}},
		{file: "text-googlegroups-01.eml", format: "googlegroups", want: []textWant{{"team-list@googlegroups.com", "5.0.0", "", "rejected"}}},
	})
}
