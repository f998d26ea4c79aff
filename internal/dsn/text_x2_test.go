package dsn

import "testing"

func TestTextX2X3(t *testing.T) {
	runTextCases(t, []textCase{
		{file: "text-x2-01.eml", format: "x2", want: []textWant{{"fred@example.com", "5.0.0", "", "suspend"}}},
		{file: "text-x3-01.eml", format: "x3", want: []textWant{{"gina@example.com", "5.3.0", "553", ""}}},
	})
}
