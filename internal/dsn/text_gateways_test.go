package dsn

import "testing"

func TestTextGateways(t *testing.T) {
	runTextCases(t, []textCase{
		{file: "text-mailmarshal-01.eml", format: "mailmarshal", want: []textWant{{"hugo@example.org", "5.1.1", "550", ""}}},
		{file: "text-interscan-01.eml", format: "interscanmss", diagHas: "User unknown", want: []textWant{{"iris@example.jp", "5.1.1", "550", ""}}},
		{file: "text-exchange2007-01.eml", format: "exchange2007", diagHas: "RecipNotFound", want: []textWant{{"jan@corp.example.com", "5.1.1", "550", "userunknown"}}},
	})
}
