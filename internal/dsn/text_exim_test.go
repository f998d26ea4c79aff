package dsn

import "testing"

func TestTextExim(t *testing.T) {
	runTextCases(t, []textCase{
		{file: "text-exim-multi.eml", format: "exim", want: []textWant{
			{"alice@example.org", "5.1.1", "550", ""},
			{"bob@example.org", "5.2.2", "552", ""},
		}},
		{file: "text-exim-delay.eml", format: "exim", kind: KindDelayed, diagHas: "Greylisted", want: []textWant{
			{"carol@example.com", "4.7.1", "451", "expired"},
		}},
		{file: "text-exim-mailru.eml", format: "exim", want: []textWant{
			{"dmitri@example.org", "5.1.1", "550", ""},
		}},
	})
}
