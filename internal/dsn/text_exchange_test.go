package dsn

import "testing"

func TestTextExchange2003(t *testing.T) {
	runTextCases(t, []textCase{
		{file: "text-exchange2003-01.eml", format: "exchange2003", want: []textWant{{"eve@corp.example.com", "5.0.0", "", "userunknown"}}},
	})
}
