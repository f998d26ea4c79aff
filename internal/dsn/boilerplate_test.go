package dsn

import "testing"

// TestStripBoilerplate checks that a bounce's fixed opening sentences are
// dropped and that whatever else the text says is kept.
func TestStripBoilerplate(t *testing.T) {
	cases := []struct{ in, want string }{
		{"This is the mail system at host mx.example.net. I'm sorry to have to inform you that your message could not be delivered to one or more recipients. It's attached below. The mail system", ""},
		{"This is the mail system at host mx.example.net.\nI'm sorry to have to inform you that your message could not\nbe delivered to one or more recipients.", ""},
		{"This is the mail system at host mx.example.net. Your mailbox quota was exceeded. The mail system", "Your mailbox quota was exceeded."},
		{"The mail system at example.org refused the message", "The mail system at example.org refused the message"},
		{"552 mailbox full", "552 mailbox full"},
		{"", ""},
	}
	for _, c := range cases {
		if got := stripBoilerplate(c.in); got != c.want {
			t.Errorf("stripBoilerplate(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
