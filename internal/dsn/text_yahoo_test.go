package dsn

import "testing"

func TestTextYahoo(t *testing.T) {
	runTextCases(t, []textCase{
		{file: "text-yahoo-01.eml", format: "yahoo", want: []textWant{{"grace@example.jp", "5.2.2", "552", ""}}},
	})
}
