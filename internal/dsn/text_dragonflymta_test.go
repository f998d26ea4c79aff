package dsn

import "testing"

func TestTextDragonFly(t *testing.T) {
	runTextCases(t, []textCase{
		{file: "text-dragonfly-01.eml", format: "dragonfly", diagHas: "did not like our RCPT TO", want: []textWant{{"heidi@example.com", "5.1.1", "550", ""}}},
	})
}
