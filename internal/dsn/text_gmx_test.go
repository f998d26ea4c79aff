package dsn

import "testing"

func TestTextGMX(t *testing.T) {
	runTextCases(t, []textCase{
		{file: "text-gmx-01.eml", format: "gmx", want: []textWant{{"kate@example.org", "5.1.1", "", ""}}},
	})
}
