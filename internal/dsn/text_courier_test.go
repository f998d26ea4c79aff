package dsn

import "testing"

func TestTextCourier(t *testing.T) {
	runTextCases(t, []textCase{
		{file: "variant-courier-text.eml", format: "courier", want: []textWant{
			{"nora@example.com", "5.1.1", "550", ""},
			{"owen@example.org", "5.3.4", "552", ""},
		}},
	})
}
