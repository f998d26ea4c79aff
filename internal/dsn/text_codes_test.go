package dsn

import "testing"

func TestDiagCodes(t *testing.T) {
	cases := []struct{ in, status, reply string }{
		{"host mx.example.com [192.0.2.1]: 550 5.1.1 <a@example.com>... User unknown", "5.1.1", "550"},
		{"550-5.7.26 Unauthenticated email", "5.7.26", "550"},
		{"Sorry, no mailbox here by that name. (#5.1.1)", "5.1.1", ""},
		{"550: 5.1.1 <a@example.com>... User Unknown", "5.1.1", "550"},
		{"[(0) example.com. [2606:2800:220:6d::1]:25: socket error]", "", ""},
		{"connect to 203.0.113.5 port 25: timed out", "", ""},
		{"452 4.3.1 Insufficient system storage", "4.3.1", "452"},
		{"552 Error: disk quota exceeded", "", "552"},
		{"554 5.7.509 Access denied", "5.7.509", "554"},
	}
	for _, c := range cases {
		st, rc := diagCodes(c.in)
		if st != c.status || rc != c.reply {
			t.Errorf("diagCodes(%q) = %q, %q; want %q, %q", c.in, st, rc, c.status, c.reply)
		}
	}
}

func TestCleanAddr(t *testing.T) {
	cases := map[string]string{
		"<User@Example.COM>":       "User@example.com",
		"\"someone@example.org\":": "someone@example.org",
		"rfc822; a@example.net":    "a@example.net",
		"kijit":                    "",
		"a@b":                      "",
		"mailto:x@example.jp":      "x@example.jp",
		"two@at@example.com":       "",
	}
	for in, want := range cases {
		if got := cleanAddr(in); got != want {
			t.Errorf("cleanAddr(%q) = %q, want %q", in, got, want)
		}
	}
	if a, rest := firstAddr("There was an error delivering your mail to <x@example.com>."); a != "x@example.com" || rest != "." {
		t.Errorf("firstAddr = %q, %q", a, rest)
	}
}
