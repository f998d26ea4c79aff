package dsn

import "testing"

func TestTextOffice365(t *testing.T) {
	runTextCases(t, []textCase{
		{file: "text-office365-01.eml", format: "office365", diagHas: "wasn't found at", want: []textWant{{"max@tenant.example.com", "5.1.10", "550", ""}}},
	})
}
