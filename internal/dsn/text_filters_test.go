package dsn

import "testing"

func TestTextFilters(t *testing.T) {
	runTextCases(t, []textCase{
		{file: "text-amavis-01.eml", format: "amavis", want: []textWant{{"olga@example.co.jp", "5.1.1", "550", ""}}},
		{file: "text-surfcontrol-01.eml", format: "surfcontrol", diagHas: "No such user", want: []textWant{{"paul@example.com", "5.0.0", "550", ""}}},
		{file: "text-powermta-01.eml", format: "powermta", want: []textWant{{"rosa@example.jp", "5.0.0", "", ""}}},
		{file: "text-barracuda-01.eml", format: "barracuda", want: []textWant{{"tara@example.org", "5.0.0", "", "spamdetected"}}},
	})
}
