package mailbox

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"golang.org/x/oauth2"
)

// AccessToken exchanges the refresh token in c for an access token at
// o.TokenURL (RFC 6749 §6), e.g. https://oauth2.googleapis.com/token for
// Google or https://login.microsoftonline.com/<tenant>/oauth2/v2.0/token for
// Microsoft 365. The client authenticates in the body or with HTTP Basic,
// whichever the endpoint accepts. A refusal by the endpoint (an OAuth2 error
// response such as invalid_grant, or HTTP 400/401) wraps ErrAuth: the grant
// was revoked or the client is misconfigured, and retrying will not help.
// Other failures (network, 5xx) are returned as is, to be retried.
//
// The returned token may carry a new refresh token, which the caller must
// store in place of the old one.
func AccessToken(ctx context.Context, o *OAuth2Settings, c Credentials, hc *http.Client) (*oauth2.Token, error) {
	if o == nil {
		return nil, errors.New("mailbox: oauth2 settings missing")
	}
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	cfg := &oauth2.Config{
		ClientID:     o.ClientID,
		ClientSecret: c.ClientSecret,
		Endpoint:     oauth2.Endpoint{TokenURL: o.TokenURL, AuthStyle: oauth2.AuthStyleAutoDetect},
		Scopes:       o.Scopes,
	}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, hc)
	tok, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: c.RefreshToken}).Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && (re.ErrorCode != "" || re.Response.StatusCode == http.StatusBadRequest || re.Response.StatusCode == http.StatusUnauthorized) {
			code := re.ErrorCode
			if code == "" {
				code = re.Response.Status
			}
			return nil, fmt.Errorf("%w: oauth2 token endpoint refused the refresh token: %s", ErrAuth, code)
		}
		return nil, fmt.Errorf("mailbox: oauth2 token refresh: %w", err)
	}
	if tok.AccessToken == "" {
		return nil, fmt.Errorf("%w: oauth2 token endpoint returned no access token", ErrAuth)
	}
	return tok, nil
}
