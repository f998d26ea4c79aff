package mailbox

import "fmt"

// xoauth2Client is a go-sasl Client for the XOAUTH2 mechanism documented by
// Google ("OAuth 2.0 Mechanism", developers.google.com/gmail/imap/xoauth2-protocol)
// and Microsoft ("Authenticate an IMAP, POP or SMTP connection using OAuth").
// go-sasl ships OAUTHBEARER (RFC 7628) but not this older mechanism.
//
// The initial response is "user=" user ^A "auth=Bearer " token ^A ^A. On
// failure the server sends a base64 JSON challenge describing the error; the
// client must answer with an empty response, after which the server sends
// the tagged NO.
type xoauth2Client struct {
	username string
	token    string
	failed   bool
}

func (c *xoauth2Client) Start() (string, []byte, error) {
	return MechXOAuth2, []byte("user=" + c.username + "\x01auth=Bearer " + c.token + "\x01\x01"), nil
}

func (c *xoauth2Client) Next(challenge []byte) ([]byte, error) {
	if c.failed {
		return nil, fmt.Errorf("mailbox: XOAUTH2: unexpected second challenge")
	}
	// The only challenge in XOAUTH2 is the error report: acknowledge it with
	// an empty response so the server ends the exchange with NO.
	c.failed = true
	return []byte{}, nil
}
