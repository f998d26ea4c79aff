package mailbox

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// tokenEndpoint is a local OAuth2 token endpoint (RFC 6749 §5) that grants
// testToken for refresh token "rt-good", optionally rotating it, refuses
// "rt-revoked" with invalid_grant, and fails with 503 for "rt-down".
func tokenEndpoint(t *testing.T, rotate bool) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") != "refresh_token" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		w.Header().Set("Content-Type", "application/json")
		if id != "client-1" || secret != "s3cret" {
			w.WriteHeader(http.StatusUnauthorized)
			json.NewEncoder(w).Encode(map[string]string{"error": "invalid_client"})
			return
		}
		switch r.PostForm.Get("refresh_token") {
		case "rt-good":
			resp := map[string]any{"access_token": testToken, "token_type": "Bearer", "expires_in": 3600}
			if rotate {
				resp["refresh_token"] = "rt-rotated"
			}
			json.NewEncoder(w).Encode(resp)
		case "rt-down":
			http.Error(w, "maintenance", http.StatusServiceUnavailable)
		default:
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]string{"error": "invalid_grant", "error_description": "Token has been expired or revoked."})
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestDial(t *testing.T) {
	implicit := startMemServer(t, true)
	starttls := startMemServer(t, false)
	tokens, _ := tokenEndpoint(t, false)

	type tc struct {
		name     string
		srv      *memServer
		s        Settings
		c        Credentials
		wantAuth bool // want ErrAuth
		wantErr  bool
	}
	pw := Credentials{Password: testPassword}
	oauth := &OAuth2Settings{ClientID: "client-1", TokenURL: tokens.URL}
	oc := Credentials{ClientSecret: "s3cret", RefreshToken: "rt-good"}
	cases := []tc{
		{name: "implicit tls login", srv: implicit, s: Settings{TLS: TLSImplicit}, c: pw},
		{name: "implicit tls plain", srv: implicit, s: Settings{TLS: TLSImplicit, Mechanism: MechPlain}, c: pw},
		{name: "starttls login", srv: starttls, s: Settings{TLS: TLSStartTLS}, c: pw},
		{name: "plain text on loopback", srv: starttls, s: Settings{TLS: TLSNone}, c: pw},
		{name: "wrong password", srv: implicit, s: Settings{}, c: Credentials{Password: "nope"}, wantAuth: true},
		{name: "wrong password plain", srv: implicit, s: Settings{Mechanism: MechPlain}, c: Credentials{Password: "nope"}, wantAuth: true},
		{name: "xoauth2 auto", srv: implicit, s: Settings{Auth: AuthOAuth2, OAuth2: oauth}, c: oc},
		{name: "oauthbearer", srv: implicit, s: Settings{Auth: AuthOAuth2, Mechanism: MechOAuthBearer, OAuth2: oauth}, c: oc},
		{name: "revoked refresh token", srv: implicit, s: Settings{Auth: AuthOAuth2, OAuth2: oauth}, c: Credentials{ClientSecret: "s3cret", RefreshToken: "rt-revoked"}, wantAuth: true},
		{name: "bad client secret", srv: implicit, s: Settings{Auth: AuthOAuth2, OAuth2: oauth}, c: Credentials{ClientSecret: "x", RefreshToken: "rt-good"}, wantAuth: true},
		{name: "token endpoint down", srv: implicit, s: Settings{Auth: AuthOAuth2, OAuth2: oauth}, c: Credentials{ClientSecret: "s3cret", RefreshToken: "rt-down"}, wantErr: true},
		{name: "tls to plain server", srv: starttls, s: Settings{TLS: TLSImplicit}, c: pw, wantErr: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			host, port := hostPort(t, c.srv.addr)
			c.s.Host, c.s.Port, c.s.Username = host, port, testUser
			p := &Policy{AllowPrivateHosts: true, TLSConfig: &tls.Config{RootCAs: c.srv.pool}, IOTimeout: 5 * time.Second, DialTimeout: 5 * time.Second}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			conn, err := Dial(ctx, c.s, c.c, p)
			switch {
			case c.wantAuth:
				if !errors.Is(err, ErrAuth) {
					t.Fatalf("Dial error = %v, want ErrAuth", err)
				}
			case c.wantErr:
				if err == nil || errors.Is(err, ErrAuth) {
					t.Fatalf("Dial error = %v, want a non-auth error", err)
				}
			default:
				if err != nil {
					t.Fatalf("Dial: %v", err)
				}
				if err := conn.Client().Noop().Wait(); err != nil {
					t.Fatalf("NOOP after auth: %v", err)
				}
				conn.Close()
				conn.Close()
			}
		})
	}
}

func TestDialUntrustedCertificate(t *testing.T) {
	srv := startMemServer(t, true)
	host, port := hostPort(t, srv.addr)
	_, err := Dial(context.Background(), Settings{Host: host, Port: port, Username: testUser},
		Credentials{Password: testPassword}, &Policy{AllowPrivateHosts: true})
	if err == nil || errors.Is(err, ErrAuth) {
		t.Fatalf("Dial with unknown CA = %v, want a TLS error", err)
	}
}

func TestRefreshTokenRotation(t *testing.T) {
	srv := startMemServer(t, true)
	tokens, calls := tokenEndpoint(t, true)
	host, port := hostPort(t, srv.addr)
	s := Settings{Host: host, Port: port, Username: testUser, Auth: AuthOAuth2,
		OAuth2: &OAuth2Settings{ClientID: "client-1", TokenURL: tokens.URL, Scopes: []string{"https://mail.google.com/"}}}
	conn, err := Dial(context.Background(), s, Credentials{ClientSecret: "s3cret", RefreshToken: "rt-good"},
		&Policy{AllowPrivateHosts: true, TLSConfig: &tls.Config{RootCAs: srv.pool}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if got := conn.RotatedRefreshToken(); got != "rt-rotated" {
		t.Fatalf("RotatedRefreshToken = %q", got)
	}
	if calls.Load() != 1 {
		t.Fatalf("token endpoint called %d times", calls.Load())
	}
}

func TestPolicy(t *testing.T) {
	ctx := context.Background()
	deny := &Policy{}
	allow := &Policy{AllowPrivateHosts: true}
	cases := []struct {
		name string
		p    *Policy
		s    Settings
		ok   bool
	}{
		{"public ip", deny, Settings{Host: "8.8.8.8"}, true},
		{"public ipv6", deny, Settings{Host: "2606:4700:4700::1111"}, true},
		{"loopback denied", deny, Settings{Host: "127.0.0.1"}, false},
		{"localhost name denied", deny, Settings{Host: "localhost"}, false},
		{"private denied", deny, Settings{Host: "10.1.2.3"}, false},
		{"rfc1918 172 denied", deny, Settings{Host: "172.16.0.1"}, false},
		{"link-local denied", deny, Settings{Host: "169.254.169.254"}, false},
		{"ipv6 ula denied", deny, Settings{Host: "fd00::1"}, false},
		{"ipv6 link-local denied", deny, Settings{Host: "fe80::1"}, false},
		{"mapped loopback denied", deny, Settings{Host: "::ffff:127.0.0.1"}, false},
		{"cgnat denied", deny, Settings{Host: "100.64.0.1"}, false},
		{"unspecified denied", deny, Settings{Host: "0.0.0.0"}, false},
		{"loopback allowed", allow, Settings{Host: "127.0.0.1"}, true},
		{"plain denied without allow", deny, Settings{Host: "8.8.8.8", TLS: TLSNone}, false},
		{"plain to private refused even if allowed", allow, Settings{Host: "10.0.0.1", TLS: TLSNone}, false},
		{"plain to loopback allowed", allow, Settings{Host: "127.0.0.1", TLS: TLSNone}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.s.Username = "u"
			err := c.p.CheckSettings(ctx, &c.s, Credentials{Password: "p"})
			if (err == nil) != c.ok {
				t.Fatalf("CheckSettings(%s) = %v, want ok=%v", c.s.Host, err, c.ok)
			}
		})
	}
}

// TestPolicyUnresolvableHost checks that a host name that does not resolve is
// refused as a validation error on "host" (RFC 6761 reserves .invalid, so no
// resolver answers it with an address).
func TestPolicyUnresolvableHost(t *testing.T) {
	s := Settings{Host: "imap.no-such-host.invalid", Username: "u"}
	err := (&Policy{}).CheckSettings(context.Background(), &s, Credentials{Password: "p"})
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Field != "host" {
		t.Fatalf("CheckSettings(%s) = %v, want a ValidationError on host", s.Host, err)
	}
}

func TestValidate(t *testing.T) {
	ok := func() Settings { return Settings{Host: "imap.example.com", Username: "u"} }
	pw := Credentials{Password: "p"}
	cases := []struct {
		name  string
		edit  func(*Settings)
		c     Credentials
		field string
	}{
		{"defaults", func(*Settings) {}, pw, ""},
		{"no host", func(s *Settings) { s.Host = "" }, pw, "host"},
		{"host with path", func(s *Settings) { s.Host = "a/b" }, pw, "host"},
		{"bad port", func(s *Settings) { s.Port = 70000 }, pw, "port"},
		{"bad tls", func(s *Settings) { s.TLS = "ssl3" }, pw, "tls"},
		{"no user", func(s *Settings) { s.Username = "" }, pw, "username"},
		{"no password", func(*Settings) {}, Credentials{}, "password"},
		{"oauth mech for password", func(s *Settings) { s.Mechanism = "xoauth2" }, pw, "mechanism"},
		{"oauth2 without client", func(s *Settings) { s.Auth = AuthOAuth2 }, Credentials{RefreshToken: "r"}, "oauth2.client_id"},
		{"oauth2 bad token url", func(s *Settings) {
			s.Auth = AuthOAuth2
			s.OAuth2 = &OAuth2Settings{ClientID: "c", TokenURL: "ftp://x"}
		}, Credentials{RefreshToken: "r"}, "oauth2.token_url"},
		{"oauth2 no refresh token", func(s *Settings) {
			s.Auth = AuthOAuth2
			s.OAuth2 = &OAuth2Settings{ClientID: "c", TokenURL: "https://oauth2.googleapis.com/token"}
		}, Credentials{}, "refresh_token"},
		{"oauth2 ok", func(s *Settings) {
			s.Auth = AuthOAuth2
			s.OAuth2 = &OAuth2Settings{ClientID: "c", TokenURL: "https://oauth2.googleapis.com/token"}
		}, Credentials{RefreshToken: "r"}, ""},
		{"duplicate folder", func(s *Settings) { s.Folders = []string{"INBOX", "INBOX"} }, pw, "folders"},
		{"lookback too long", func(s *Settings) { s.LookbackDays = 1000 }, pw, "lookback_days"},
		{"interval too short", func(s *Settings) { s.SyncIntervalSeconds = 5 }, pw, "sync_interval_seconds"},
		{"move into synced folder", func(s *Settings) { s.ProcessedAction = ProcessedMove; s.ProcessedTarget = "INBOX" }, pw, "processed_target"},
		{"label bad keyword", func(s *Settings) { s.ProcessedAction = ProcessedLabel; s.ProcessedTarget = "\\Seen" }, pw, "processed_target"},
		{"label ok", func(s *Settings) { s.ProcessedAction = ProcessedLabel; s.ProcessedTarget = "$Rebound" }, pw, ""},
		{"target without action", func(s *Settings) { s.ProcessedTarget = "x" }, pw, "processed_target"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := ok()
			c.edit(&s)
			s.Normalize()
			err := s.Validate(c.c)
			var ve *ValidationError
			switch {
			case c.field == "" && err != nil:
				t.Fatalf("Validate = %v", err)
			case c.field != "" && (!errors.As(err, &ve) || ve.Field != c.field):
				t.Fatalf("Validate = %v, want invalid %s", err, c.field)
			}
		})
	}
	s := ok()
	s.Normalize()
	if s.Port != 993 || s.TLS != TLSImplicit || s.Folders[0] != "INBOX" || s.LookbackDays != 30 || s.SyncInterval() != 5*time.Minute {
		t.Fatalf("defaults = %+v", s)
	}
}
