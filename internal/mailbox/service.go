package mailbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/emersion/go-imap/v2"
	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/secret"
	"github.com/rebound-hq/rebound/internal/store"
)

// Service manages a workspace's mailboxes: the API's create, read, update,
// delete and test-connection calls, and the worker's loading of a mailbox
// for sync. Credentials are sealed with Keyring on the way in and never
// leave through a View.
type Service struct {
	DB      *gorm.DB
	Keyring *secret.Keyring
	Policy  *Policy
	Now     func() time.Time // nil means time.Now
	// DefaultInterval is the sync interval of a mailbox created without
	// one (the deployment's SYNC_INTERVAL); 0, or less than
	// MinSyncInterval, means DefaultSyncInterval.
	DefaultInterval time.Duration
}

// Input is a mailbox as the API receives it on create.
type Input struct {
	Name        string
	Settings    Settings
	Credentials Credentials
	// Paused creates the mailbox without syncing it until a Patch resumes
	// it (for example while the sending side registers its sent messages).
	Paused bool
}

// Patch changes a mailbox; nil fields stay as they are. Changing Settings
// or Credentials re-validates and re-checks the host, and puts a mailbox in
// auth_error or error back to active.
type Patch struct {
	Name        *string
	Settings    *Settings
	Credentials *Credentials // replaces all secrets when set
	Paused      *bool        // true pauses syncing, false resumes it
}

// View is a mailbox as the API returns it: settings and sync state, never
// a secret.
type View struct {
	ID                  int64
	WorkspaceID         int64
	Name                string
	Settings            Settings
	Status              string // active, paused, auth_error, error
	LastSyncAt          *time.Time
	LastError           string
	ConsecutiveFailures int
	NextSyncAt          *time.Time
	MessagesSeen        int64
	BouncesRecorded     int64
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

// syncOptions is the sync_options JSON column (migration 00030).
type syncOptions struct {
	Mechanism    string          `json:"mechanism,omitempty"`
	OAuth2       *OAuth2Settings `json:"oauth2,omitempty"`
	LookbackDays int             `json:"lookback_days,omitempty"`
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) policy() *Policy {
	if s.Policy == nil {
		return &Policy{}
	}
	return s.Policy
}

// secretAD binds sealed credentials to their workspace.
func secretAD(workspaceID int64) []byte {
	return []byte("rebound/mailbox-credentials/workspace/" + strconv.FormatInt(workspaceID, 10))
}

// Create validates in (settings, credentials, host policy: a
// *ValidationError or ErrPrivateHost), seals the credentials and stores
// the mailbox, due for its first sync at once. It does not connect; call
// TestConnection first to check the credentials.
func (s *Service) Create(ctx context.Context, workspaceID int64, in Input) (*View, error) {
	if in.Settings.SyncIntervalSeconds == 0 && s.DefaultInterval >= MinSyncInterval {
		in.Settings.SyncIntervalSeconds = int(s.DefaultInterval / time.Second)
	}
	if err := s.policy().CheckSettings(ctx, &in.Settings, in.Credentials); err != nil {
		return nil, err
	}
	status := store.MailboxActive
	if in.Paused {
		status = store.MailboxPaused
	}
	row := &store.MailboxRow{Mailbox: store.Mailbox{WorkspaceID: workspaceID, Name: in.Name, Status: status}}
	if err := s.fill(row, in.Settings, in.Credentials); err != nil {
		return nil, err
	}
	now := s.now()
	row.UpdatedAt = now
	if err := store.CreateMailbox(ctx, s.DB, row); err != nil {
		return nil, fmt.Errorf("mailbox: create: %w", err)
	}
	return s.Get(ctx, workspaceID, row.ID)
}

func (s *Service) fill(row *store.MailboxRow, st Settings, c Credentials) error {
	sealed, err := s.seal(row.WorkspaceID, c)
	if err != nil {
		return err
	}
	opts, err := json.Marshal(syncOptions{Mechanism: st.Mechanism, OAuth2: st.OAuth2, LookbackDays: st.LookbackDays})
	if err != nil {
		return fmt.Errorf("mailbox: sync options: %w", err)
	}
	row.Host, row.Port, row.TLSMode = st.Host, st.Port, string(st.TLS)
	row.AuthKind, row.Username = string(st.Auth), st.Username
	row.SecretSealed, row.SecretKeyID = []byte(sealed), s.Keyring.ActiveKeyID()
	row.Folders = store.StringArray(st.Folders)
	row.SyncIntervalSeconds = st.SyncIntervalSeconds
	row.ProcessedAction, row.ProcessedTarget = string(st.ProcessedAction), st.ProcessedTarget
	row.SyncOptions = opts
	return nil
}

func (s *Service) seal(workspaceID int64, c Credentials) (string, error) {
	pt, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("mailbox: seal: %w", err)
	}
	return s.Keyring.Seal(pt, secretAD(workspaceID))
}

// Get returns a mailbox of the workspace, or an error wrapping
// store.ErrNotFound.
func (s *Service) Get(ctx context.Context, workspaceID, id int64) (*View, error) {
	row, err := store.GetMailbox(ctx, s.DB, workspaceID, id)
	if err != nil {
		return nil, fmt.Errorf("mailbox: get: %w", err)
	}
	v, err := toView(row)
	return v, err
}

// List returns the workspace's mailboxes by id.
func (s *Service) List(ctx context.Context, workspaceID int64) ([]View, error) {
	rows, err := store.ListMailboxes(ctx, s.DB, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("mailbox: list: %w", err)
	}
	out := make([]View, 0, len(rows))
	for i := range rows {
		v, err := toView(&rows[i])
		if err != nil {
			return nil, err
		}
		out = append(out, *v)
	}
	return out, nil
}

// Delete removes a mailbox and its checkpoints; recorded bounces stay.
func (s *Service) Delete(ctx context.Context, workspaceID, id int64) error {
	if err := store.DeleteMailbox(ctx, s.DB, workspaceID, id); err != nil {
		return fmt.Errorf("mailbox: delete: %w", err)
	}
	return nil
}

// Update applies p. New settings without new credentials keep the stored
// secrets, which must still fit the settings (a switch to OAuth2 needs a
// refresh token).
func (s *Service) Update(ctx context.Context, workspaceID, id int64, p Patch) (*View, error) {
	row, err := store.GetMailbox(ctx, s.DB, workspaceID, id)
	if err != nil {
		return nil, fmt.Errorf("mailbox: update: %w", err)
	}
	if p.Name != nil {
		row.Name = *p.Name
	}
	if p.Settings != nil || p.Credentials != nil {
		st, creds, err := s.Load(row)
		if err != nil {
			return nil, err
		}
		if p.Settings != nil {
			st = *p.Settings
		}
		if p.Credentials != nil {
			creds = *p.Credentials
		}
		if err := s.policy().CheckSettings(ctx, &st, creds); err != nil {
			return nil, err
		}
		if err := s.fill(row, st, creds); err != nil {
			return nil, err
		}
		// New credentials or settings end an auth_error or error stop.
		if row.Status == store.MailboxAuthError || row.Status == store.MailboxError {
			row.Status = store.MailboxActive
		}
		row.ConsecutiveFailures, row.LastError, row.NextSyncAt = 0, "", nil
	}
	if p.Paused != nil {
		switch {
		case *p.Paused:
			row.Status = store.MailboxPaused
		case row.Status == store.MailboxPaused:
			row.Status, row.NextSyncAt = store.MailboxActive, nil
		}
	}
	row.UpdatedAt = s.now()
	if err := store.SaveMailbox(ctx, s.DB, row); err != nil {
		return nil, fmt.Errorf("mailbox: update: %w", err)
	}
	return s.Get(ctx, workspaceID, id)
}

// Load returns the settings and opened credentials of a stored mailbox.
func (s *Service) Load(row *store.MailboxRow) (Settings, Credentials, error) {
	st, err := settingsOf(row)
	if err != nil {
		return Settings{}, Credentials{}, err
	}
	pt, err := s.Keyring.Open(string(row.SecretSealed), secretAD(row.WorkspaceID))
	if err != nil {
		return Settings{}, Credentials{}, fmt.Errorf("mailbox %d: open credentials: %w", row.ID, err)
	}
	var c Credentials
	if err := json.Unmarshal(pt, &c); err != nil {
		return Settings{}, Credentials{}, fmt.Errorf("mailbox %d: credentials: %w", row.ID, err)
	}
	return st, c, nil
}

// Reseal stores c as the mailbox's credentials under the active key (after
// an OAuth2 refresh-token rotation, or to move off a retired key).
func (s *Service) Reseal(ctx context.Context, row *store.MailboxRow, c Credentials) error {
	sealed, err := s.seal(row.WorkspaceID, c)
	if err != nil {
		return err
	}
	if err := store.UpdateMailboxSecret(ctx, s.DB, row.ID, []byte(sealed), s.Keyring.ActiveKeyID(), s.now()); err != nil {
		return fmt.Errorf("mailbox: reseal: %w", err)
	}
	return nil
}

func settingsOf(row *store.MailboxRow) (Settings, error) {
	var o syncOptions
	if len(row.SyncOptions) > 0 {
		if err := json.Unmarshal(row.SyncOptions, &o); err != nil {
			return Settings{}, fmt.Errorf("mailbox %d: sync options: %w", row.ID, err)
		}
	}
	st := Settings{
		Host: row.Host, Port: row.Port, TLS: TLSMode(row.TLSMode), Username: row.Username,
		Auth: AuthKind(row.AuthKind), Mechanism: o.Mechanism, OAuth2: o.OAuth2,
		Folders: []string(row.Folders), LookbackDays: o.LookbackDays,
		SyncIntervalSeconds: row.SyncIntervalSeconds,
		ProcessedAction:     ProcessedAction(row.ProcessedAction), ProcessedTarget: row.ProcessedTarget,
	}
	st.Normalize()
	return st, nil
}

func toView(row *store.MailboxRow) (*View, error) {
	st, err := settingsOf(row)
	if err != nil {
		return nil, err
	}
	return &View{
		ID: row.ID, WorkspaceID: row.WorkspaceID, Name: row.Name, Settings: st, Status: row.Status,
		LastSyncAt: row.LastSyncAt, LastError: row.LastError, ConsecutiveFailures: row.ConsecutiveFailures,
		NextSyncAt: row.NextSyncAt, MessagesSeen: row.MessagesSeen, BouncesRecorded: row.BouncesRecorded,
		CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt,
	}, nil
}

// TestConnection connects with in's settings and credentials, authenticates
// and opens every folder read-only, then disconnects. It returns nil, a
// *ValidationError, ErrPrivateHost, an error wrapping ErrAuth or
// ErrCapability, or a network error.
func (s *Service) TestConnection(ctx context.Context, st Settings, c Credentials) error {
	conn, err := Dial(ctx, st, c, s.policy())
	if err != nil {
		return err
	}
	defer conn.Close()
	for _, f := range conn.settings.Folders {
		if _, err := conn.c.Select(f, &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
			return fmt.Errorf("mailbox: examine %q: %w", f, ctxErr(ctx, err))
		}
	}
	if conn.settings.ProcessedAction == ProcessedMove {
		if _, err := conn.c.Status(conn.settings.ProcessedTarget, &imap.StatusOptions{NumMessages: true}).Wait(); err != nil {
			return fmt.Errorf("mailbox: processed_target %q: %w", conn.settings.ProcessedTarget, err)
		}
	}
	return nil
}

// TestMailbox runs TestConnection with a stored mailbox's settings.
func (s *Service) TestMailbox(ctx context.Context, workspaceID, id int64) error {
	row, err := store.GetMailbox(ctx, s.DB, workspaceID, id)
	if err != nil {
		return fmt.Errorf("mailbox: test: %w", err)
	}
	st, c, err := s.Load(row)
	if err != nil {
		return err
	}
	return s.TestConnection(ctx, st, c)
}

// IsNotFound reports whether err means the mailbox does not exist in the
// workspace.
func IsNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }
