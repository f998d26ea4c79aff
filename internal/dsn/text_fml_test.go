package dsn

import "testing"

func TestTextFML(t *testing.T) {
	runTextCases(t, []textCase{
		{file: "text-fml-01.eml", format: "fml", want: []textWant{{"team@lists.example.org", "5.0.0", "", "rejected"}}},
	})
}
