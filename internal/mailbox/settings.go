// Package mailbox is Rebound's IMAP side: it validates a customer's mailbox
// connection settings, connects and authenticates (password or OAuth2), and
// syncs folders: it finds the messages above a per-folder checkpoint, keeps
// the likely bounces by their headers, fetches those whole and hands them in
// batches to a Recorder, advancing the checkpoint only with a committed
// batch. It never changes a message's flags unless the mailbox opts in to
// moving or labelling processed bounces.
//
// go-imap v2's client takes no context.Context, so this package owns the
// network connection: it dials it itself (to the address it vetted), sets a
// deadline on every read and write, and closes it when the context ends.
package mailbox

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// TLSMode selects how the IMAP connection is encrypted.
type TLSMode string

// TLS modes.
const (
	// TLSImplicit is TLS from the first byte (RFC 8314 §3), port 993. Default.
	TLSImplicit TLSMode = "tls"
	// TLSStartTLS upgrades a plain connection with STARTTLS (RFC 9051 §6.2.1), port 143.
	TLSStartTLS TLSMode = "starttls"
	// TLSNone sends everything, credentials included, in clear text. Allowed
	// only for hosts that resolve to loopback addresses, and only when the
	// Policy allows it (tests and the demo).
	TLSNone TLSMode = "plain"
)

// AuthKind selects how the mailbox authenticates.
type AuthKind string

// Authentication kinds.
const (
	// AuthPassword authenticates with a username and password (IMAP LOGIN, or
	// SASL PLAIN/LOGIN when chosen or when the server sets LOGINDISABLED).
	AuthPassword AuthKind = "password"
	// AuthOAuth2 authenticates with an access token obtained from a refresh
	// token (RFC 6749 §6), sent with XOAUTH2 or OAUTHBEARER (RFC 7628).
	AuthOAuth2 AuthKind = "oauth2"
)

// SASL mechanism names accepted in Settings.Mechanism.
const (
	MechLogin       = "LOGIN" // IMAP LOGIN command (RFC 9051 §6.2.3)
	MechPlain       = "PLAIN" // SASL PLAIN (RFC 4616)
	MechSASLLogin   = "SASL-LOGIN"
	MechXOAuth2     = "XOAUTH2"     // Google/Microsoft XOAUTH2
	MechOAuthBearer = "OAUTHBEARER" // RFC 7628
)

// Defaults applied by Settings.Normalize.
const (
	DefaultFolder       = "INBOX"
	DefaultLookbackDays = 30
	DefaultSyncInterval = 5 * time.Minute
	MinSyncInterval     = time.Minute
	MaxLookbackDays     = 365
	maxFolders          = 50
)

// Settings are a mailbox's connection and sync settings, stored as JSON
// beside the sealed Credentials. They hold no secret.
type Settings struct {
	Host     string   `json:"host"`
	Port     int      `json:"port"`     // 0 means 993 (tls) or 143 (starttls, none)
	TLS      TLSMode  `json:"tls"`      // "" means TLSImplicit
	Username string   `json:"username"` // IMAP user (and the OAuth2 user)
	Auth     AuthKind `json:"auth"`     // "" means AuthPassword
	// Mechanism forces one mechanism; "" picks LOGIN for passwords (PLAIN
	// when the server sets LOGINDISABLED) and OAUTHBEARER or XOAUTH2 for
	// OAuth2, whichever the server advertises (XOAUTH2 preferred, as Gmail
	// and Microsoft 365 document it).
	Mechanism string `json:"mechanism,omitempty"`
	// OAuth2 holds the non-secret OAuth2 client settings (Auth oauth2 only).
	OAuth2 *OAuth2Settings `json:"oauth2,omitempty"`

	// Folders to sync; empty means INBOX.
	Folders []string `json:"folders,omitempty"`
	// LookbackDays bounds the first sync of a folder (and a rescan after a
	// UIDVALIDITY change) to messages received in the last N days; 0 means 30.
	LookbackDays int `json:"lookback_days,omitempty"`
	// SyncIntervalSeconds is the time between scheduled syncs; 0 means 300.
	SyncIntervalSeconds int `json:"sync_interval_seconds,omitempty"`
	// ProcessedAction says what to do with a recorded bounce once its batch
	// has committed: nothing (default), move it to ProcessedTarget, or add
	// the keyword ProcessedTarget (a flag without backslash, e.g.
	// "$Rebound"). Only this option ever changes the customer's mailbox.
	ProcessedAction ProcessedAction `json:"processed_action,omitempty"`
	ProcessedTarget string          `json:"processed_target,omitempty"`
}

// ProcessedAction is what the sync does to a recorded bounce.
type ProcessedAction string

// Processed actions.
const (
	ProcessedNone  ProcessedAction = "none"  // leave it alone (default)
	ProcessedMove  ProcessedAction = "move"  // UID MOVE (RFC 6851) to the target folder
	ProcessedLabel ProcessedAction = "label" // UID STORE +FLAGS.SILENT (target keyword)
)

// OAuth2Settings are the OAuth2 client settings of a mailbox.
type OAuth2Settings struct {
	ClientID string   `json:"client_id"`
	TokenURL string   `json:"token_url"` // e.g. https://oauth2.googleapis.com/token
	Scopes   []string `json:"scopes,omitempty"`
}

// Credentials are the secret half of a mailbox's settings, sealed at rest
// with internal/secret and never returned by the API.
type Credentials struct {
	Password     string `json:"password,omitempty"`      // AuthPassword
	ClientSecret string `json:"client_secret,omitempty"` // AuthOAuth2 (may be empty for public clients)
	RefreshToken string `json:"refresh_token,omitempty"` // AuthOAuth2
}

// ValidationError names the setting that is wrong. Its message is safe to
// show to the customer.
type ValidationError struct {
	Field  string
	Reason string
}

func (e *ValidationError) Error() string {
	return "mailbox: invalid " + e.Field + ": " + e.Reason
}

func invalid(field, format string, args ...any) error {
	return &ValidationError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// Normalize fills in defaults in place.
func (s *Settings) Normalize() {
	s.Host = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s.Host)), ".")
	if s.TLS == "" {
		s.TLS = TLSImplicit
	}
	if s.Auth == "" {
		s.Auth = AuthPassword
	}
	s.Mechanism = strings.ToUpper(strings.TrimSpace(s.Mechanism))
	if s.Port == 0 {
		if s.TLS == TLSImplicit {
			s.Port = 993
		} else {
			s.Port = 143
		}
	}
	if s.ProcessedAction == "" {
		s.ProcessedAction = ProcessedNone
	}
	if len(s.Folders) == 0 {
		s.Folders = []string{DefaultFolder}
	}
	if s.LookbackDays == 0 {
		s.LookbackDays = DefaultLookbackDays
	}
	if s.SyncIntervalSeconds == 0 {
		s.SyncIntervalSeconds = int(DefaultSyncInterval / time.Second)
	}
}

// Validate checks settings and credentials after Normalize, without any
// network access (host resolution is CheckHost's job). It returns a
// *ValidationError.
func (s *Settings) Validate(c Credentials) error {
	if s.Host == "" || len(s.Host) > 253 || strings.ContainsAny(s.Host, " /:@[]") && !isIPv6Literal(s.Host) {
		return invalid("host", "must be a host name or IP address")
	}
	if s.Port < 1 || s.Port > 65535 {
		return invalid("port", "must be between 1 and 65535")
	}
	switch s.TLS {
	case TLSImplicit, TLSStartTLS, TLSNone:
	default:
		return invalid("tls", "must be tls, starttls or plain")
	}
	if s.Username == "" {
		return invalid("username", "is required")
	}
	switch s.Auth {
	case AuthPassword:
		switch s.Mechanism {
		case "", MechLogin, MechPlain, MechSASLLogin:
		default:
			return invalid("mechanism", "must be LOGIN, PLAIN or SASL-LOGIN for password authentication")
		}
		if c.Password == "" {
			return invalid("password", "is required")
		}
		if s.OAuth2 != nil {
			return invalid("oauth2", "is only for oauth2 authentication")
		}
	case AuthOAuth2:
		switch s.Mechanism {
		case "", MechXOAuth2, MechOAuthBearer:
		default:
			return invalid("mechanism", "must be XOAUTH2 or OAUTHBEARER for oauth2 authentication")
		}
		if s.OAuth2 == nil || s.OAuth2.ClientID == "" {
			return invalid("oauth2.client_id", "is required")
		}
		u, err := url.Parse(s.OAuth2.TokenURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return invalid("oauth2.token_url", "must be an http(s) URL")
		}
		if c.RefreshToken == "" {
			return invalid("refresh_token", "is required")
		}
	default:
		return invalid("auth", "must be password or oauth2")
	}
	if len(s.Folders) > maxFolders {
		return invalid("folders", "at most %d folders", maxFolders)
	}
	seen := map[string]bool{}
	for _, f := range s.Folders {
		if f == "" || strings.ContainsAny(f, "\r\n\x00") {
			return invalid("folders", "folder names must be non-empty single lines")
		}
		if seen[f] {
			return invalid("folders", "folder %q listed twice", f)
		}
		seen[f] = true
	}
	if s.LookbackDays < 1 || s.LookbackDays > MaxLookbackDays {
		return invalid("lookback_days", "must be between 1 and %d", MaxLookbackDays)
	}
	if time.Duration(s.SyncIntervalSeconds)*time.Second < MinSyncInterval || s.SyncIntervalSeconds > 86400 {
		return invalid("sync_interval_seconds", "must be between 60 and 86400")
	}
	switch s.ProcessedAction {
	case ProcessedNone:
		if s.ProcessedTarget != "" {
			return invalid("processed_target", "must be empty when processed_action is none")
		}
	case ProcessedMove:
		if s.ProcessedTarget == "" || strings.ContainsAny(s.ProcessedTarget, "\r\n\x00") {
			return invalid("processed_target", "must name a folder")
		}
		if seen[s.ProcessedTarget] {
			return invalid("processed_target", "must not be a synced folder")
		}
	case ProcessedLabel:
		if !isAtom(s.ProcessedTarget) {
			return invalid("processed_target", "must be an IMAP keyword (letters, digits, $, -, _, .)")
		}
	default:
		return invalid("processed_action", "must be none, move or label")
	}
	return nil
}

// Lookback returns the first-sync window.
func (s *Settings) Lookback() time.Duration {
	return time.Duration(s.LookbackDays) * 24 * time.Hour
}

// SyncInterval returns the time between scheduled syncs.
func (s *Settings) SyncInterval() time.Duration {
	return time.Duration(s.SyncIntervalSeconds) * time.Second
}

func isIPv6Literal(h string) bool {
	return strings.Count(h, ":") >= 2 && !strings.ContainsAny(h, " /@[]")
}

// isAtom reports whether s is a safe IMAP flag keyword (RFC 9051 §9, flag-keyword).
func isAtom(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case r == '$' || r == '-' || r == '_' || r == '.':
		default:
			return false
		}
	}
	return true
}

// ErrAuth marks an authentication failure: wrong password, revoked or
// expired refresh token, mechanism refused. The scheduler stops syncing such
// a mailbox (status auth_error) until its credentials change.
var ErrAuth = errors.New("mailbox: authentication failed")

// ErrPrivateHost is returned when a mailbox host resolves to an address the
// deployment does not allow (loopback, private, link-local, ...).
var ErrPrivateHost = errors.New("mailbox: host resolves to a non-public address")

// ErrCapability is returned when the server lacks something the mailbox
// needs (IMAP4rev1, an authentication mechanism, MOVE).
var ErrCapability = errors.New("mailbox: server lacks a required capability")
