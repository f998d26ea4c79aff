package dsn

import "testing"

func TestTextJapaneseCarriers(t *testing.T) {
	runTextCases(t, []textCase{
		{file: "text-ezweb-01.eml", format: "ezweb", want: []textWant{{"tom@ezweb.example.jp", "5.0.0", "", "suspend"}}},
		{file: "text-ezweb-02.eml", format: "ezweb", diagHas: "User unknown", want: []textWant{{"uma@example.com", "5.0.0", "550", ""}}},
		{file: "text-kddi-01.eml", format: "kddi", want: []textWant{{"vera@dion.example.jp", "5.0.0", "", "mailboxfull"}}},
		{file: "text-biglobe-01.eml", format: "biglobe", want: []textWant{{"walt@biglobe.example.jp", "5.0.0", "", "mailboxfull"}}},
	})
}
