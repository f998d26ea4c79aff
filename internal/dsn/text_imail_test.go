package dsn

import "testing"

func TestTextIMail(t *testing.T) {
	runTextCases(t, []textCase{
		{file: "text-imail-01.eml", format: "imail", want: []textWant{{"nina@example.org", "5.0.0", "", "userunknown"}}},
	})
}
