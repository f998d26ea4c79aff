package mailbox

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-sasl"
)

// Policy holds deployment-wide connection rules. The zero value refuses
// private hosts and plain text and uses the default timeouts.
type Policy struct {
	// AllowPrivateHosts lets a host resolve to loopback, private (RFC 1918,
	// RFC 4193), link-local or other non-public addresses (tests, the demo,
	// on-premises deployments). It also permits TLS mode "plain", which is
	// only ever accepted for loopback addresses.
	AllowPrivateHosts bool
	// Resolver resolves host names; nil means net.DefaultResolver.
	Resolver *net.Resolver
	// TLSConfig is cloned for TLS connections (tests add their CA to
	// RootCAs); nil means the system roots. ServerName is always set to the
	// mailbox host.
	TLSConfig *tls.Config
	// DialTimeout bounds the TCP connect and TLS handshake; 0 means 15s.
	DialTimeout time.Duration
	// IOTimeout bounds each read and write on the connection; 0 means 60s.
	IOTimeout time.Duration
	// HTTPClient is used for OAuth2 token requests; nil means a client with
	// a 30s timeout.
	HTTPClient *http.Client
}

func (p *Policy) dialTimeout() time.Duration {
	if p.DialTimeout > 0 {
		return p.DialTimeout
	}
	return 15 * time.Second
}

func (p *Policy) ioTimeout() time.Duration {
	if p.IOTimeout > 0 {
		return p.IOTimeout
	}
	return 60 * time.Second
}

// publicAddr reports whether ip is a globally routable unicast address.
func publicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() ||
		ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range nonPublicPrefixes {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// nonPublicPrefixes are special-purpose ranges (RFC 6890 and successors)
// beyond those the netip predicates cover.
var nonPublicPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // CGNAT, RFC 6598
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
}

// resolveHost resolves host (a name or an IP literal) and checks every
// address against the policy: with AllowPrivateHosts false, any address that
// is not public fails the whole host with ErrPrivateHost, so a name cannot
// smuggle a private address in among public ones. Connections then go to the
// returned addresses, never to a second lookup (no DNS rebinding).
func (p *Policy) resolveHost(ctx context.Context, host string) ([]netip.Addr, error) {
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip.Unmap()}
	} else {
		r := p.Resolver
		if r == nil {
			r = net.DefaultResolver
		}
		ips, err := r.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, fmt.Errorf("mailbox: resolve %s: %w", host, err)
		}
		for _, ip := range ips {
			addrs = append(addrs, ip.Unmap())
		}
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("mailbox: resolve %s: no addresses", host)
	}
	if !p.AllowPrivateHosts {
		for _, a := range addrs {
			if !publicAddr(a) {
				return nil, fmt.Errorf("%w: %s is %s", ErrPrivateHost, host, a)
			}
		}
	}
	return addrs, nil
}

// CheckSettings validates s and c and resolves the host under the policy,
// including the rule that TLS mode "plain" needs AllowPrivateHosts and a host
// whose every address is loopback. Call it on create and update. A host
// name that does not resolve is a *ValidationError on "host" (a mailbox that
// can never be reached is not accepted); a refused private address stays
// ErrPrivateHost.
func (p *Policy) CheckSettings(ctx context.Context, s *Settings, c Credentials) error {
	s.Normalize()
	if err := s.Validate(c); err != nil {
		return err
	}
	_, err := p.resolveFor(ctx, s)
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return invalid("host", "%s does not resolve: %s", s.Host, dnsErr.Err)
	}
	return err
}

func (p *Policy) resolveFor(ctx context.Context, s *Settings) ([]netip.Addr, error) {
	addrs, err := p.resolveHost(ctx, s.Host)
	if err != nil {
		return nil, err
	}
	if s.TLS == TLSNone {
		if !p.AllowPrivateHosts {
			return nil, invalid("tls", "plain-text connections are not allowed in this deployment")
		}
		for _, a := range addrs {
			if !a.IsLoopback() {
				return nil, invalid("tls", "plain text is only allowed to loopback hosts")
			}
		}
	}
	return addrs, nil
}

// Conn is an authenticated IMAP connection. It is not safe for concurrent
// use. Close it when done; it is also closed when the context given to Dial
// ends, which makes any pending command fail.
type Conn struct {
	c        *imapclient.Client
	raw      net.Conn
	settings Settings
	caps     imap.CapSet
	stop     func() bool
	once     sync.Once
	rotated  string
}

// RotatedRefreshToken returns the new refresh token the OAuth2 token
// endpoint issued while connecting (RFC 6749 §6 lets it rotate them;
// Microsoft does), or "" if it kept the old one. Callers must seal and store
// a non-empty value, or the next sync may fail with ErrAuth.
func (c *Conn) RotatedRefreshToken() string { return c.rotated }

// Dial connects to the mailbox described by s (normalised and validated
// here), checks capabilities and authenticates. Authentication failures wrap
// ErrAuth; other failures are network or protocol errors worth retrying.
func Dial(ctx context.Context, s Settings, c Credentials, p *Policy) (*Conn, error) {
	if p == nil {
		p = &Policy{}
	}
	s.Normalize()
	if err := s.Validate(c); err != nil {
		return nil, err
	}
	addrs, err := p.resolveFor(ctx, &s)
	if err != nil {
		return nil, err
	}

	// Obtain the OAuth2 access token before opening the IMAP connection, so
	// a revoked refresh token is reported without touching the server.
	var token, rotated string
	if s.Auth == AuthOAuth2 {
		tok, err := AccessToken(ctx, s.OAuth2, c, p.HTTPClient)
		if err != nil {
			return nil, err
		}
		token = tok.AccessToken
		if tok.RefreshToken != "" && tok.RefreshToken != c.RefreshToken {
			rotated = tok.RefreshToken
		}
	}

	raw, err := dialAddrs(ctx, addrs, s.Port, p.dialTimeout())
	if err != nil {
		return nil, err
	}
	dc := &deadlineConn{Conn: raw, timeout: p.ioTimeout()}
	conn := &Conn{raw: raw, settings: s, rotated: rotated}
	conn.stop = context.AfterFunc(ctx, func() { raw.Close() })

	opts := &imapclient.Options{}
	if s.TLS != TLSNone {
		cfg := &tls.Config{}
		if p.TLSConfig != nil {
			cfg = p.TLSConfig.Clone()
		}
		cfg.ServerName = s.Host
		if cfg.MinVersion == 0 {
			cfg.MinVersion = tls.VersionTLS12
		}
		opts.TLSConfig = cfg
	}
	switch s.TLS {
	case TLSImplicit:
		cfg := opts.TLSConfig
		cfg.NextProtos = []string{"imap"}
		tc := tls.Client(dc, cfg)
		hctx, cancel := context.WithTimeout(ctx, p.dialTimeout())
		err = tc.HandshakeContext(hctx)
		cancel()
		if err != nil {
			conn.abort()
			return nil, fmt.Errorf("mailbox: tls handshake with %s: %w", s.Host, err)
		}
		conn.c = imapclient.New(tc, opts)
	case TLSStartTLS:
		conn.c, err = imapclient.NewStartTLS(dc, opts)
		if err != nil {
			conn.abort()
			return nil, fmt.Errorf("mailbox: starttls with %s: %w", s.Host, err)
		}
	default:
		conn.c = imapclient.New(dc, opts)
	}
	if err := conn.c.WaitGreeting(); err != nil {
		conn.Close()
		return nil, fmt.Errorf("mailbox: greeting from %s: %w", s.Host, ctxErr(ctx, err))
	}
	if err := conn.authenticate(ctx, c, token); err != nil {
		conn.Close()
		return nil, err
	}
	caps, err := conn.c.Capability().Wait()
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("mailbox: capability: %w", ctxErr(ctx, err))
	}
	if !caps.Has(imap.CapIMAP4rev1) && !caps.Has(imap.CapIMAP4rev2) {
		conn.Close()
		return nil, fmt.Errorf("%w: neither IMAP4rev1 nor IMAP4rev2", ErrCapability)
	}
	if s.ProcessedAction == ProcessedMove && !caps.Has(imap.CapMove) && !caps.Has(imap.CapIMAP4rev2) {
		conn.Close()
		return nil, fmt.Errorf("%w: MOVE (needed to move processed bounces)", ErrCapability)
	}
	conn.caps = caps
	return conn, nil
}

func dialAddrs(ctx context.Context, addrs []netip.Addr, port int, timeout time.Duration) (net.Conn, error) {
	d := &net.Dialer{Timeout: timeout}
	var errs []error
	for _, a := range addrs {
		c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(a.String(), strconv.Itoa(port)))
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, fmt.Errorf("mailbox: connect: %w", errors.Join(errs...))
}

func (c *Conn) authenticate(ctx context.Context, cr Credentials, token string) error {
	s := &c.settings
	caps := c.c.Caps()
	mech := s.Mechanism
	if s.Auth == AuthOAuth2 && mech == "" {
		switch {
		case caps.Has(imap.AuthCap(MechXOAuth2)):
			mech = MechXOAuth2
		case caps.Has(imap.AuthCap(MechOAuthBearer)):
			mech = MechOAuthBearer
		default:
			return fmt.Errorf("%w: server offers neither XOAUTH2 nor OAUTHBEARER", ErrAuth)
		}
	}
	if s.Auth == AuthPassword && mech == "" {
		mech = MechLogin
		if caps.Has(imap.CapLoginDisabled) {
			mech = MechPlain
		}
	}
	var err error
	switch mech {
	case MechLogin:
		if caps.Has(imap.CapLoginDisabled) {
			return fmt.Errorf("%w: server disables LOGIN (LOGINDISABLED)", ErrAuth)
		}
		err = c.c.Login(s.Username, cr.Password).Wait()
	case MechPlain:
		err = c.c.Authenticate(sasl.NewPlainClient("", s.Username, cr.Password))
	case MechSASLLogin:
		err = c.c.Authenticate(sasl.NewLoginClient(s.Username, cr.Password))
	case MechXOAuth2:
		err = c.c.Authenticate(&xoauth2Client{username: s.Username, token: token})
	case MechOAuthBearer:
		err = c.c.Authenticate(sasl.NewOAuthBearerClient(&sasl.OAuthBearerOptions{
			Username: s.Username, Token: token, Host: s.Host, Port: s.Port,
		}))
	}
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("mailbox: authenticate: %w", ctx.Err())
	}
	var imapErr *imap.Error
	var bearerErr *sasl.OAuthBearerError
	if errors.As(err, &imapErr) || errors.As(err, &bearerErr) {
		if imapErr != nil && transientAuthCodes[imapErr.Code] {
			return fmt.Errorf("mailbox: authenticate (%s): server refused for now: %w", mech, err)
		}
		return fmt.Errorf("%w (%s): %v", ErrAuth, mech, err)
	}
	return fmt.Errorf("mailbox: authenticate (%s): %w", mech, err)
}

// transientAuthCodes are the RFC 5530 response codes with which a server
// refuses a login for a reason that says nothing about the credentials:
// the service is down (UNAVAILABLE), a connection limit is reached (LIMIT),
// the account is busy (INUSE) or the server failed (SERVERBUG). They are
// retried like network errors, not reported as ErrAuth, which stops the
// mailbox until its credentials change.
var transientAuthCodes = map[imap.ResponseCode]bool{
	imap.ResponseCodeUnavailable: true,
	imap.ResponseCodeLimit:       true,
	imap.ResponseCodeInUse:       true,
	imap.ResponseCodeServerBug:   true,
}

// Caps returns the capabilities the server advertised after authentication.
func (c *Conn) Caps() imap.CapSet { return c.caps }

// Client returns the underlying go-imap client, for tests and callers that
// need a command this package does not wrap. The Conn keeps ownership.
func (c *Conn) Client() *imapclient.Client { return c.c }

// Close logs out politely (bounded by the I/O timeout) and closes the
// connection. It is safe to call more than once.
func (c *Conn) Close() error {
	c.once.Do(func() {
		c.stop()
		if c.c != nil {
			done := make(chan struct{})
			go func() { _ = c.c.Logout().Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(2 * time.Second):
			}
			_ = c.c.Close()
		}
		_ = c.raw.Close()
	})
	return nil
}

func (c *Conn) abort() {
	c.once.Do(func() {
		c.stop()
		_ = c.raw.Close()
	})
}

// ctxErr prefers the context's error over the network error it caused.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return err
}

// deadlineConn sets a fresh deadline before every Read and Write, so a
// stalled server fails the command instead of hanging the worker.
type deadlineConn struct {
	net.Conn
	timeout time.Duration
}

func (d *deadlineConn) Read(b []byte) (int, error) {
	if err := d.Conn.SetReadDeadline(time.Now().Add(d.timeout)); err != nil {
		return 0, err
	}
	return d.Conn.Read(b)
}

func (d *deadlineConn) Write(b []byte) (int, error) {
	if err := d.Conn.SetWriteDeadline(time.Now().Add(d.timeout)); err != nil {
		return 0, err
	}
	return d.Conn.Write(b)
}
