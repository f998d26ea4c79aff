// Package store holds Rebound's GORM models and the queries over them.
//
// Models mirror the tables of migrations/00001_schema.sql. They are storage
// shapes only: the API converts them to its own response types and never
// serialises a model directly (no json tags here on purpose).
//
// Every function takes a context and an explicit workspace ID, and a *gorm.DB
// that may be a transaction: the exported method of the calling service owns
// the transaction (style.md §4). Plain CRUD uses GORM; dedupe upserts and
// report aggregations are named SQL in queries/*.sql (see Query).
package store

import (
	"time"
)

// Workspace is a customer account; every customer-owned row refers to one.
type Workspace struct {
	ID        int64
	Name      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// APIKey is a workspace API key; only the SHA-256 of the secret is stored.
type APIKey struct {
	ID          int64
	WorkspaceID int64
	Name        string
	Prefix      string // visible start of the key, unique
	Hash        []byte // SHA-256 of the whole key (32 bytes)
	CreatedAt   time.Time
	LastUsedAt  *time.Time
	RevokedAt   *time.Time
}

// TableName implements gorm's Tabler.
func (APIKey) TableName() string { return "api_keys" }

// Mailbox statuses.
const (
	MailboxActive    = "active"
	MailboxPaused    = "paused"
	MailboxAuthError = "auth_error"
	MailboxError     = "error"
)

// Mailbox is a customer mailbox polled over IMAP. SecretSealed is the
// password or OAuth2 refresh token sealed by internal/secret under
// SecretKeyID; it never leaves the worker.
type Mailbox struct {
	ID                  int64
	WorkspaceID         int64
	Name                string
	Host                string
	Port                int
	TLSMode             string `gorm:"column:tls_mode"` // tls, starttls, plain
	AuthKind            string // password, oauth2
	Username            string
	SecretSealed        []byte
	SecretKeyID         string
	Folders             StringArray `gorm:"type:text[]"`
	Status              string
	SyncIntervalSeconds int
	LastSyncAt          *time.Time
	LastError           string
	ConsecutiveFailures int
	NextSyncAt          *time.Time
	MessagesSeen        int64
	BouncesRecorded     int64
	ProcessedAction     string // none, move, label
	ProcessedTarget     string
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

// MailboxFolder is the sync checkpoint of one folder: the last UID recorded
// under the folder's UIDVALIDITY (RFC 9051 §2.3.1.1). Both are uint32 values
// kept in bigint columns.
type MailboxFolder struct {
	WorkspaceID int64
	MailboxID   int64  `gorm:"primaryKey"`
	Name        string `gorm:"primaryKey"`
	UIDValidity int64  `gorm:"column:uidvalidity"`
	LastUID     int64  `gorm:"column:last_uid"`
	UpdatedAt   time.Time
}

// Campaign is a sending campaign of a workspace.
type Campaign struct {
	ID                        int64
	WorkspaceID               int64
	Name                      string
	ExternalID                *string // the sending side's identifier
	Status                    string  // active, paused, archived
	DeliverabilitySignalAt    *time.Time
	DeliverabilitySignalLabel string
	CreatedAt                 time.Time
	UpdatedAt                 time.Time
}

// Lead statuses.
const (
	LeadActive    = "active"
	LeadStopped   = "stopped"
	LeadCompleted = "completed"
	LeadPaused    = "paused"
)

// Lead is one address enrolled in one campaign, with its bounce state.
type Lead struct {
	ID                     int64
	WorkspaceID            int64
	CampaignID             int64
	Email                  string // lower case
	ExternalID             *string
	Status                 string
	ConsecutiveSoftBounces int
	RetryAfter             *time.Time
	StopReason             string
	StoppedAt              *time.Time
	BounceCount            int
	LastSentAt             *time.Time
	LastEventAt            *time.Time
	CreatedAt              time.Time
	UpdatedAt              time.Time
}

// SentMessage is a message the sending side registered, used for matching
// bounces and for the "sent" report figures.
type SentMessage struct {
	ID          int64
	WorkspaceID int64
	CampaignID  int64
	LeadID      int64
	MailboxID   *int64
	MessageID   string  // without angle brackets
	VERPToken   *string `gorm:"column:verp_token"`
	Recipient   string  // lower case
	Provider    string
	SentAt      time.Time
	CreatedAt   time.Time
}

// Raw message decode statuses.
const (
	DecodeDecoded   = "decoded"
	DecodeUndecoded = "undecoded"
	DecodeNotBounce = "not_bounce"
)

// RawMessage is a fetched message, stored once per workspace under its
// dedupe hash, its bytes gzip-compressed in Content.
type RawMessage struct {
	ID            int64
	WorkspaceID   int64
	DedupeHash    []byte
	Content       []byte
	Size          int
	MailboxID     *int64
	Folder        string
	UIDValidity   int64 `gorm:"column:uidvalidity"`
	UID           int64 `gorm:"column:uid"`
	ReceivedAt    time.Time
	DecodeStatus  string
	DecodeError   string
	ResultCount   int
	CreatedAt     time.Time
	ReprocessedAt *time.Time
	// ContentPurgedAt is when housekeeping emptied Content, past the raw
	// retention period (migration 00050); nil while the bytes are kept.
	ContentPurgedAt *time.Time
}

// BounceEvent is one decoded recipient result of one stored message.
// CampaignID and LeadID are nil when the event matched no lead.
type BounceEvent struct {
	ID                int64
	WorkspaceID       int64
	RawMessageID      int64
	ResultIndex       int
	Kind              string
	Class             *string
	Reason            string
	Label             string
	AddressInvalid    bool
	Status            string
	ReplyCode         string
	CodeEntryID       string
	Diagnostic        string
	RemoteMTA         string `gorm:"column:remote_mta"`
	ReportingMTA      string `gorm:"column:reporting_mta"`
	Provider          string
	FeedbackType      string
	Format            string
	Recipient         string
	OriginalMessageID string
	MatchedBy         *string
	CampaignID        *int64
	LeadID            *int64
	SentMessageID     *int64
	SendingMailboxID  *int64
	OccurredAt        time.Time
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// LeadActivity is one entry of a lead's timeline.
type LeadActivity struct {
	ID            int64
	WorkspaceID   int64
	LeadID        int64
	CampaignID    int64
	Activity      string // sent, bounce, delayed, auto_reply, complaint, delivered
	BounceEventID *int64
	SentMessageID *int64
	Summary       string
	Effect        string
	OccurredAt    time.Time
	CreatedAt     time.Time
}

// Suppression is an address the workspace must not send to again.
type Suppression struct {
	ID            int64
	WorkspaceID   int64
	Email         string
	Reason        string
	Source        string // bounce, complaint, manual
	SourceEventID *int64
	CreatedAt     time.Time
}

// PolicySettings overrides the lead policy defaults for one workspace; a nil
// field keeps the default.
type PolicySettings struct {
	WorkspaceID              int64 `gorm:"primaryKey"`
	SoftBounceLimit          *int
	BackoffBaseSeconds       *int
	BackoffCapSeconds        *int
	StopOnHard               *bool
	SuppressOnAddressInvalid *bool
	SuppressOnComplaint      *bool
	SuppressOnAnyHard        *bool
	UpdatedAt                time.Time
}

// Metrics are the report counter columns shared by the counter tables; the
// JSON names are the columns' (ApplyCounterDeltas sends rows as jsonb).
type Metrics struct {
	Sent        int64 `json:"sent"`
	Events      int64 `json:"events"`
	Bounced     int64 `json:"bounced"`
	Hard        int64 `json:"hard"`
	Soft        int64 `json:"soft"`
	Complaints  int64 `json:"complaints"`
	AutoReplies int64 `json:"auto_replies"`
	Delayed     int64 `json:"delayed"`
	Delivered   int64 `json:"delivered"`
}

// Add adds o to m.
func (m *Metrics) Add(o Metrics) {
	m.Sent += o.Sent
	m.Events += o.Events
	m.Bounced += o.Bounced
	m.Hard += o.Hard
	m.Soft += o.Soft
	m.Complaints += o.Complaints
	m.AutoReplies += o.AutoReplies
	m.Delayed += o.Delayed
	m.Delivered += o.Delivered
}

// IsZero reports whether every counter is zero.
func (m Metrics) IsZero() bool { return m == Metrics{} }

// CampaignCounters are one campaign's report totals (CampaignID 0: the
// workspace's unmatched events).
type CampaignCounters struct {
	WorkspaceID  int64 `gorm:"primaryKey"`
	CampaignID   int64 `gorm:"primaryKey"`
	Metrics      `gorm:"embedded"`
	LeadsBounced int64
}

// TableName implements gorm's Tabler.
func (CampaignCounters) TableName() string { return "report_campaign_counters" }

// Report dimensions of DimensionCounters.
const (
	DimensionProvider = "provider"
	DimensionMailbox  = "mailbox"
)

// DimensionCounters are a campaign's counters for one provider or one
// sending mailbox (Value is the mailbox ID in decimal, "" when unknown).
type DimensionCounters struct {
	WorkspaceID int64  `gorm:"primaryKey"`
	CampaignID  int64  `gorm:"primaryKey"`
	Dimension   string `gorm:"primaryKey"`
	Value       string `gorm:"primaryKey"`
	Metrics     `gorm:"embedded"`
}

// TableName implements gorm's Tabler.
func (DimensionCounters) TableName() string { return "report_dimension_counters" }

// LabelCounters count a campaign's events per report label, class ("" for
// kinds other than bounce) and code (status, else reply code, else "").
type LabelCounters struct {
	WorkspaceID int64  `gorm:"primaryKey"`
	CampaignID  int64  `gorm:"primaryKey"`
	Label       string `gorm:"primaryKey"`
	Class       string `gorm:"primaryKey"`
	Code        string `gorm:"primaryKey"`
	Events      int64
}

// TableName implements gorm's Tabler.
func (LabelCounters) TableName() string { return "report_label_counters" }

// PeriodCounters are a campaign's counters for one 15-minute period starting
// at PeriodStart (UTC).
type PeriodCounters struct {
	WorkspaceID int64     `gorm:"primaryKey"`
	CampaignID  int64     `gorm:"primaryKey"`
	PeriodStart time.Time `gorm:"primaryKey"`
	Metrics     `gorm:"embedded"`
}

// TableName implements gorm's Tabler.
func (PeriodCounters) TableName() string { return "report_period_counters" }

// Period is the length of a PeriodCounters row.
const Period = 15 * time.Minute

// PeriodOf returns the start of the 15-minute period holding t, in UTC.
func PeriodOf(t time.Time) time.Time { return t.UTC().Truncate(Period) }
