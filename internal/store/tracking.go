package store

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Functions of this file serve internal/tracking's recording transaction.
// Bulk inputs travel as parallel arrays (unnest) on the hot path and as one
// jsonb parameter elsewhere; row types with json tags carry them only for
// that purpose (they are query parameters, not API shapes).

// bulk encodes rows as the jsonb parameter of a named bulk query.
func bulk(name string, rows any) (string, error) {
	b, err := json.Marshal(rows)
	if err != nil {
		return "", fmt.Errorf("store: %s: encode rows: %w", name, err)
	}
	return string(b), nil
}

// LockWorkspace takes the workspace's recording lock until the end of the
// transaction db: recording, sent registration and reprocessing of one
// workspace run one at a time (other workspaces are not affected).
func LockWorkspace(ctx context.Context, db *gorm.DB, workspaceID int64) error {
	_, err := execNamed(ctx, db, "lock-workspace", workspaceID)
	return err
}

// LockWorkspacePolicy is LockWorkspace returning the workspace's policy
// overrides as GetPolicySettings does, in one round trip.
func LockWorkspacePolicy(ctx context.Context, db *gorm.DB, workspaceID int64) (PolicySettings, error) {
	ps := PolicySettings{WorkspaceID: workspaceID}
	err := queryNamed(ctx, db, "lock-workspace-policy", func(r *sql.Rows) error {
		return r.Scan(&ps.SoftBounceLimit, &ps.BackoffBaseSeconds, &ps.BackoffCapSeconds, &ps.StopOnHard,
			&ps.SuppressOnAddressInvalid, &ps.SuppressOnComplaint, &ps.SuppressOnAnyHard)
	}, workspaceID)
	return ps, err
}

// RawInsert is one new message for InsertRawMessages. Hash is the hex
// SHA-256 dedupe hash; Content the gzip-compressed bytes.
type RawInsert struct {
	Hash         string
	Content      []byte
	Size         int
	MailboxID    int64
	Folder       string
	UIDValidity  int64
	UID          int64
	ReceivedAt   time.Time
	DecodeStatus string
	DecodeError  string
	ResultCount  int
}

// InsertRawMessages stores rows not yet held by the workspace and returns
// the new row IDs keyed by hex hash; rows whose hash already exists are
// absent from the map (duplicates). The hashes of rows must be distinct.
func InsertRawMessages(ctx context.Context, db *gorm.DB, workspaceID int64, rows []RawInsert) (map[string]int64, error) {
	out := make(map[string]int64, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	n := len(rows)
	hashes, contents := make([][]byte, n), make([][]byte, n)
	sizes, results := make([]int32, n), make([]int32, n)
	mailboxes, uidvs, uids := make([]int64, n), make([]int64, n), make([]int64, n)
	folders, statuses, errs := make([]string, n), make([]string, n), make([]string, n)
	received := make([]time.Time, n)
	for i, r := range rows {
		h, err := hex.DecodeString(r.Hash)
		if err != nil {
			return nil, fmt.Errorf("store: insert raw messages: hash %q: %w", r.Hash, err)
		}
		hashes[i], contents[i], sizes[i], results[i] = h, r.Content, int32(r.Size), int32(r.ResultCount)
		mailboxes[i], uidvs[i], uids[i] = r.MailboxID, r.UIDValidity, r.UID
		folders[i], statuses[i], errs[i], received[i] = r.Folder, r.DecodeStatus, r.DecodeError, r.ReceivedAt
	}
	err := queryNamed(ctx, db, "insert-raw-messages", func(r *sql.Rows) error {
		var id int64
		var h string
		if err := r.Scan(&id, &h); err != nil {
			return err
		}
		out[h] = id
		return nil
	}, workspaceID, hashes, contents, sizes, mailboxes, folders, uidvs, uids, received, statuses, errs, results)
	return out, err
}

// RawRef identifies a stored message and its decode state.
type RawRef struct {
	ID           int64
	DecodeStatus string
	DecodeError  string
}

// FindRawMessages returns the stored messages of the workspace with the
// given hex hashes, keyed by hex hash.
func FindRawMessages(ctx context.Context, db *gorm.DB, workspaceID int64, hexHashes []string) (map[string]RawRef, error) {
	out := make(map[string]RawRef, len(hexHashes))
	if len(hexHashes) == 0 {
		return out, nil
	}
	hashes := make([][]byte, 0, len(hexHashes))
	for _, h := range hexHashes {
		b, err := hex.DecodeString(h)
		if err != nil {
			return nil, fmt.Errorf("store: find raw messages: hash %q: %w", h, err)
		}
		hashes = append(hashes, b)
	}
	err := queryNamed(ctx, db, "find-raw-messages", func(r *sql.Rows) error {
		var ref RawRef
		var h string
		if err := r.Scan(&ref.ID, &h, &ref.DecodeStatus, &ref.DecodeError); err != nil {
			return err
		}
		out[h] = ref
		return nil
	}, workspaceID, hashes)
	return out, err
}

// GetPolicySettings returns the workspace's policy overrides; a workspace
// without a row gets the zero value (every default kept).
func GetPolicySettings(ctx context.Context, db *gorm.DB, workspaceID int64) (PolicySettings, error) {
	var ps PolicySettings
	err := db.WithContext(ctx).Where("workspace_id = ?", workspaceID).Take(&ps).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return PolicySettings{WorkspaceID: workspaceID}, nil
	}
	return ps, Translate("get policy settings", err)
}

// SavePolicySettings creates or replaces the workspace's policy overrides.
func SavePolicySettings(ctx context.Context, db *gorm.DB, workspaceID int64, ps PolicySettings) error {
	ps.WorkspaceID = workspaceID
	return Translate("save policy settings", db.WithContext(ctx).Save(&ps).Error)
}

// LeadRef is a lead found by matching.
type LeadRef struct {
	ID         int64
	CampaignID int64
	Email      string
}

// CampaignKey is a (campaign, text) pair: a lead external ID or address
// within one campaign.
type CampaignKey struct {
	CampaignID int64
	Value      string
}

// SentRef is a registered sent message found by matching.
type SentRef struct {
	ID         int64
	CampaignID int64
	LeadID     int64
	MailboxID  int64 // 0 when unknown
}

// Identifiers are the identifiers found in a batch of bounces, for
// matching rules 1-3 (design.md).
type Identifiers struct {
	CampaignIDs  []int64  // numeric X-Rebound-Campaign values
	CampaignExts []string // every X-Rebound-Campaign value, as external IDs
	LeadIDs      []int64  // numeric X-Rebound-Lead values
	MessageIDs   []string // original Message-IDs
	VERPTokens   []string
}

// Found is what the workspace holds for Identifiers.
type Found struct {
	Campaigns      map[int64]bool    // campaign IDs that exist
	CampaignsByExt map[string]int64  // external ID -> campaign ID
	Leads          map[int64]LeadRef // lead ID -> lead (Email empty)
	SentByMsgID    map[string]SentRef
	SentByToken    map[string]SentRef
}

// FindIdentifiers looks every identifier up in one round trip.
func FindIdentifiers(ctx context.Context, db *gorm.DB, workspaceID int64, ids Identifiers) (*Found, error) {
	f := &Found{Campaigns: map[int64]bool{}, CampaignsByExt: map[string]int64{}, Leads: map[int64]LeadRef{},
		SentByMsgID: map[string]SentRef{}, SentByToken: map[string]SentRef{}}
	if len(ids.CampaignIDs)+len(ids.CampaignExts)+len(ids.LeadIDs)+len(ids.MessageIDs)+len(ids.VERPTokens) == 0 {
		return f, nil
	}
	err := queryNamed(ctx, db, "match-identifiers", func(r *sql.Rows) error {
		var what, key string
		var id, camp, lead, mbox int64
		if err := r.Scan(&what, &key, &id, &camp, &lead, &mbox); err != nil {
			return err
		}
		switch what {
		case "campaign_id":
			f.Campaigns[id] = true
		case "campaign_ext":
			f.CampaignsByExt[key] = id
		case "lead_id":
			f.Leads[id] = LeadRef{ID: id, CampaignID: camp}
		case "message_id":
			f.SentByMsgID[key] = SentRef{ID: id, CampaignID: camp, LeadID: lead, MailboxID: mbox}
		case "verp":
			f.SentByToken[key] = SentRef{ID: id, CampaignID: camp, LeadID: lead, MailboxID: mbox}
		}
		return nil
	}, workspaceID, nonNil(ids.CampaignIDs), nonNil(ids.CampaignExts), nonNil(ids.LeadIDs), nonNil(ids.MessageIDs), nonNil(ids.VERPTokens))
	return f, err
}

// nonNil turns a nil slice into an empty one (an empty array, not NULL).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// FindCampaignLeads looks up leads within campaigns by external ID (byExt)
// and by address (byEmail) in one round trip.
func FindCampaignLeads(ctx context.Context, db *gorm.DB, workspaceID int64, byExt, byEmail []CampaignKey) (ext, email map[CampaignKey]LeadRef, err error) {
	ext, email = map[CampaignKey]LeadRef{}, map[CampaignKey]LeadRef{}
	if len(byExt)+len(byEmail) == 0 {
		return ext, email, nil
	}
	split := func(keys []CampaignKey) ([]int64, []string) {
		c, v := make([]int64, len(keys)), make([]string, len(keys))
		for i, k := range keys {
			c[i], v[i] = k.CampaignID, k.Value
		}
		return c, v
	}
	ec, ev := split(byExt)
	mc, mv := split(byEmail)
	err = queryNamed(ctx, db, "match-campaign-leads", func(r *sql.Rows) error {
		var what, key string
		var camp, id int64
		if err := r.Scan(&what, &camp, &key, &id); err != nil {
			return err
		}
		if what == "external" {
			ext[CampaignKey{camp, key}] = LeadRef{ID: id, CampaignID: camp}
		} else {
			email[CampaignKey{camp, key}] = LeadRef{ID: id, CampaignID: camp, Email: key}
		}
		return nil
	}, workspaceID, ec, ev, mc, mv)
	return ext, email, err
}

// ActiveLeadsByEmail returns, per address, the workspace's active lead most
// recently sent to (design.md, matching rule 4).
func ActiveLeadsByEmail(ctx context.Context, db *gorm.DB, workspaceID int64, emails []string) (map[string]LeadRef, error) {
	out := map[string]LeadRef{}
	if len(emails) == 0 {
		return out, nil
	}
	err := queryNamed(ctx, db, "active-leads-by-email", func(r *sql.Rows) error {
		var l LeadRef
		if err := r.Scan(&l.ID, &l.CampaignID, &l.Email); err != nil {
			return err
		}
		out[l.Email] = l
		return nil
	}, workspaceID, emails)
	return out, err
}

// EmailAt is an address at a point in time.
type EmailAt struct {
	Email string
	At    time.Time
}

// LeadsByEmailAt returns, per (address, time), the workspace's lead with
// that address created by then, most recently sent to first, whatever its
// status: matching rule 4 as of a past time, for reprocessing.
func LeadsByEmailAt(ctx context.Context, db *gorm.DB, workspaceID int64, keys []EmailAt) (map[EmailAt]LeadRef, error) {
	out := map[EmailAt]LeadRef{}
	if len(keys) == 0 {
		return out, nil
	}
	emails, ats := make([]string, len(keys)), make([]time.Time, len(keys))
	for i, k := range keys {
		emails[i], ats[i] = k.Email, k.At
	}
	err := queryNamed(ctx, db, "leads-by-email-at", func(r *sql.Rows) error {
		var k EmailAt
		var l LeadRef
		if err := r.Scan(&k.Email, &k.At, &l.ID, &l.CampaignID); err != nil {
			return err
		}
		k.At = k.At.UTC()
		l.Email = k.Email
		out[k] = l
		return nil
	}, workspaceID, emails, ats)
	return out, err
}

// LeadAt is a lead and an event time, for LatestSendsAt.
type LeadAt struct {
	LeadID int64
	At     time.Time
}

// LatestSendsAt returns, for each key in order, the lead's latest send
// (sent_messages) at or before the key's time, the higher ID first among
// sends at the same instant; a zero SentRef when the lead had none by then.
// It costs one round trip whatever the number of keys.
func LatestSendsAt(ctx context.Context, db *gorm.DB, workspaceID int64, keys []LeadAt) ([]SentRef, error) {
	out := make([]SentRef, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	leads, ats := make([]int64, len(keys)), make([]time.Time, len(keys))
	for i, k := range keys {
		leads[i], ats[i] = k.LeadID, k.At
	}
	err := queryNamed(ctx, db, "latest-sends-at", func(r *sql.Rows) error {
		var n int64
		var s SentRef
		if err := r.Scan(&n, &s.ID, &s.CampaignID, &s.LeadID, &s.MailboxID); err != nil {
			return err
		}
		if n < 1 || n > int64(len(out)) {
			return fmt.Errorf("store: latest-sends-at: position %d out of range", n)
		}
		out[n-1] = s
		return nil
	}, workspaceID, leads, ats)
	return out, err
}

// LockLeads reads the workspace's leads among ids and locks them (FOR
// UPDATE, in ID order) until the end of the transaction.
func LockLeads(ctx context.Context, db *gorm.DB, workspaceID int64, ids []int64) (map[int64]*Lead, error) {
	out := map[int64]*Lead{}
	if len(ids) == 0 {
		return out, nil
	}
	err := queryNamed(ctx, db, "lock-leads", func(r *sql.Rows) error {
		l := &Lead{WorkspaceID: workspaceID}
		if err := r.Scan(&l.ID, &l.CampaignID, &l.Email, &l.Status, &l.ConsecutiveSoftBounces,
			&l.RetryAfter, &l.StopReason, &l.StoppedAt, &l.BounceCount, &l.LastSentAt, &l.LastEventAt); err != nil {
			return err
		}
		out[l.ID] = l
		return nil
	}, workspaceID, ids)
	return out, err
}

// EventRow is a bounce event as the bulk event queries read and write it.
// Zero IDs stand for NULL; Class "" and MatchedBy "" too.
type EventRow struct {
	ID                int64
	RawMessageID      int64
	ResultIndex       int
	Kind              string
	Class             string
	Reason            string
	Label             string
	AddressInvalid    bool
	Status            string
	ReplyCode         string
	CodeEntryID       string
	Diagnostic        string
	RemoteMTA         string
	ReportingMTA      string
	Provider          string
	FeedbackType      string
	Format            string
	Recipient         string
	OriginalMessageID string
	MatchedBy         string
	CampaignID        int64
	LeadID            int64
	SentMessageID     int64
	SendingMailboxID  int64
	OccurredAt        time.Time
}

// EventKey identifies an event by its dedupe key within a workspace.
type EventKey struct {
	RawMessageID int64
	ResultIndex  int
}

// eventArrays returns rows as the parallel arrays $2..$25 of the bulk
// event statements.
func eventArrays(rows []EventRow) []any {
	n := len(rows)
	raw, idx := make([]int64, n), make([]int32, n)
	kind, class, reason, label := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	invalid := make([]bool, n)
	status, reply, entry, diag := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	remote, reporting, provider, feedback := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	format, rcpt, orig, by := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	camp, lead, sent, mbox := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	at := make([]time.Time, n)
	for i, e := range rows {
		raw[i], idx[i] = e.RawMessageID, int32(e.ResultIndex)
		kind[i], class[i], reason[i], label[i] = e.Kind, e.Class, e.Reason, e.Label
		invalid[i] = e.AddressInvalid
		status[i], reply[i], entry[i], diag[i] = e.Status, e.ReplyCode, e.CodeEntryID, e.Diagnostic
		remote[i], reporting[i], provider[i], feedback[i] = e.RemoteMTA, e.ReportingMTA, e.Provider, e.FeedbackType
		format[i], rcpt[i], orig[i], by[i] = e.Format, e.Recipient, e.OriginalMessageID, e.MatchedBy
		camp[i], lead[i], sent[i], mbox[i] = e.CampaignID, e.LeadID, e.SentMessageID, e.SendingMailboxID
		at[i] = e.OccurredAt
	}
	return []any{raw, idx, kind, class, reason, label, invalid, status, reply, entry, diag, remote, reporting,
		provider, feedback, format, rcpt, orig, by, camp, lead, sent, mbox, at}
}

// InsertBounceEvents inserts rows and returns their IDs by dedupe key; a row
// whose key exists is skipped and absent from the map.
func InsertBounceEvents(ctx context.Context, db *gorm.DB, workspaceID int64, rows []EventRow, now time.Time) (map[EventKey]int64, error) {
	out := make(map[EventKey]int64, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	args := append([]any{workspaceID}, eventArrays(rows)...)
	args = append(args, now)
	err := queryNamed(ctx, db, "insert-bounce-events", func(r *sql.Rows) error {
		var id int64
		var k EventKey
		if err := r.Scan(&id, &k.RawMessageID, &k.ResultIndex); err != nil {
			return err
		}
		out[k] = id
		return nil
	}, args...)
	return out, err
}

// UpdateBounceEvents rewrites the events named by rows' IDs.
func UpdateBounceEvents(ctx context.Context, db *gorm.DB, workspaceID int64, rows []EventRow, now time.Time) error {
	if len(rows) == 0 {
		return nil
	}
	ids := make([]int64, len(rows))
	for i, e := range rows {
		ids[i] = e.ID
	}
	args := append([]any{workspaceID}, eventArrays(rows)...)
	args = append(args, now, ids)
	_, err := execNamed(ctx, db, "update-bounce-events", args...)
	return err
}

// DeleteBounceEvents deletes events with their timeline entries and the
// suppressions they created.
func DeleteBounceEvents(ctx context.Context, db *gorm.DB, workspaceID int64, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	if err := DeleteEventEffects(ctx, db, workspaceID, ids); err != nil {
		return err
	}
	_, err := execNamed(ctx, db, "delete-bounce-events", workspaceID, ids)
	return err
}

// DeleteEventEffects deletes the timeline entries of the events ids and the
// suppressions they created (manual suppressions stay).
func DeleteEventEffects(ctx context.Context, db *gorm.DB, workspaceID int64, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	if _, err := execNamed(ctx, db, "delete-event-activities", workspaceID, ids); err != nil {
		return err
	}
	_, err := execNamed(ctx, db, "delete-event-suppressions", workspaceID, ids)
	return err
}

// EventsOfRawMessages returns the events of the given stored messages,
// ordered by message and result index.
func EventsOfRawMessages(ctx context.Context, db *gorm.DB, workspaceID int64, rawIDs []int64) ([]EventRow, error) {
	var out []EventRow
	if len(rawIDs) == 0 {
		return out, nil
	}
	err := queryNamed(ctx, db, "events-of-raw-messages", func(r *sql.Rows) error {
		var e EventRow
		if err := r.Scan(&e.ID, &e.RawMessageID, &e.ResultIndex, &e.Kind, &e.Class, &e.Reason, &e.Label,
			&e.AddressInvalid, &e.Status, &e.ReplyCode, &e.CodeEntryID, &e.Diagnostic, &e.RemoteMTA,
			&e.ReportingMTA, &e.Provider, &e.FeedbackType, &e.Format, &e.Recipient, &e.OriginalMessageID,
			&e.MatchedBy, &e.CampaignID, &e.LeadID, &e.SentMessageID, &e.SendingMailboxID, &e.OccurredAt); err != nil {
			return err
		}
		e.OccurredAt = e.OccurredAt.UTC()
		out = append(out, e)
		return nil
	}, workspaceID, rawIDs)
	return out, err
}

// ActivityRow is a timeline entry for InsertLeadActivities.
type ActivityRow struct {
	LeadID        int64
	CampaignID    int64
	Activity      string
	BounceEventID int64
	SentMessageID int64
	Summary       string
	Effect        string
	OccurredAt    time.Time
}

// LeadUpdate is the new bounce state of one lead for UpdateLeads.
type LeadUpdate struct {
	ID                     int64
	Status                 string
	ConsecutiveSoftBounces int
	RetryAfter             *time.Time
	StopReason             string
	StoppedAt              *time.Time
	BounceCount            int
	LastSentAt             *time.Time
	LastEventAt            *time.Time
}

// SuppressionRow is an address to suppress.
type SuppressionRow struct {
	Email         string
	Reason        string
	Source        string // bounce or complaint
	SourceEventID int64
}

// SignalRow raises a campaign's deliverability signal.
type SignalRow struct {
	CampaignID int64     `json:"campaign_id"`
	At         time.Time `json:"at"`
	Label      string    `json:"label"`
}

// Effects is what a recording or reprocessing transaction writes besides
// the events: timeline entries, lead states, suppressions (an address
// already suppressed keeps its first reason) and campaign deliverability
// signals.
type Effects struct {
	Activities   []ActivityRow
	Leads        []LeadUpdate
	Suppressions []SuppressionRow
	Signals      []SignalRow
}

// WriteEffects writes e in one statement.
func WriteEffects(ctx context.Context, db *gorm.DB, workspaceID int64, e Effects, now time.Time) error {
	if len(e.Activities)+len(e.Leads)+len(e.Suppressions)+len(e.Signals) == 0 {
		return nil
	}
	const name = "write-effects"
	n := len(e.Activities)
	aLead, aCamp, aEv, aSent := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	aAct, aSum, aEff := make([]string, n), make([]string, n), make([]string, n)
	aAt := make([]time.Time, n)
	for i, a := range e.Activities {
		aLead[i], aCamp[i], aEv[i], aSent[i] = a.LeadID, a.CampaignID, a.BounceEventID, a.SentMessageID
		aAct[i], aSum[i], aEff[i], aAt[i] = a.Activity, a.Summary, a.Effect, a.OccurredAt
	}
	n = len(e.Leads)
	lID := make([]int64, n)
	lStatus, lReason := make([]string, n), make([]string, n)
	lSoft, lCount := make([]int32, n), make([]int32, n)
	lRetry, lStopped, lSent, lEvent := make([]*time.Time, n), make([]*time.Time, n), make([]*time.Time, n), make([]*time.Time, n)
	for i, u := range e.Leads {
		lID[i], lStatus[i], lReason[i] = u.ID, u.Status, u.StopReason
		lSoft[i], lCount[i] = int32(u.ConsecutiveSoftBounces), int32(u.BounceCount)
		lRetry[i], lStopped[i], lSent[i], lEvent[i] = u.RetryAfter, u.StoppedAt, u.LastSentAt, u.LastEventAt
	}
	n = len(e.Suppressions)
	sEmail, sReason, sSource, sEv := make([]string, n), make([]string, n), make([]string, n), make([]int64, n)
	for i, r := range e.Suppressions {
		sEmail[i], sReason[i], sSource[i], sEv[i] = r.Email, r.Reason, r.Source, r.SourceEventID
	}
	signals := e.Signals
	if signals == nil {
		signals = []SignalRow{}
	}
	payload, err := bulk(name, signals)
	if err != nil {
		return err
	}
	_, err = execNamed(ctx, db, name, workspaceID, now,
		aLead, aCamp, aAct, aEv, aSent, aSum, aEff, aAt,
		lID, lStatus, lSoft, lRetry, lReason, lStopped, lCount, lSent, lEvent,
		sEmail, sReason, sSource, sEv, payload)
	return err
}

// UpsertCheckpoint advances the checkpoint of a mailbox folder. It returns
// ErrNotFound when the mailbox does not exist.
func UpsertCheckpoint(ctx context.Context, db *gorm.DB, mailboxID int64, folder string, uidValidity, lastUID uint32, now time.Time) error {
	n, err := execNamed(ctx, db, "upsert-checkpoint", mailboxID, folder, int64(uidValidity), int64(lastUID), now)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("store: upsert checkpoint: mailbox %d: %w", mailboxID, ErrNotFound)
	}
	return nil
}

// SentInsert is a sent message for InsertSentMessages.
type SentInsert struct {
	CampaignID int64     `json:"campaign_id"`
	LeadID     int64     `json:"lead_id"`
	MailboxID  int64     `json:"mailbox_id"`
	MessageID  string    `json:"message_id"`
	VERPToken  string    `json:"verp_token"`
	Recipient  string    `json:"recipient"`
	Provider   string    `json:"provider"`
	SentAt     time.Time `json:"sent_at"`
}

// InsertSentMessages registers sent messages and returns the new IDs by
// Message-ID; a Message-ID already registered is skipped.
func InsertSentMessages(ctx context.Context, db *gorm.DB, workspaceID int64, rows []SentInsert) (map[string]int64, error) {
	out := make(map[string]int64, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	const name = "insert-sent-messages"
	payload, err := bulk(name, rows)
	if err != nil {
		return nil, err
	}
	err = queryNamed(ctx, db, name, func(r *sql.Rows) error {
		var id int64
		var mid string
		if err := r.Scan(&id, &mid); err != nil {
			return err
		}
		out[mid] = id
		return nil
	}, workspaceID, payload)
	return out, err
}

// HistoryEvent is one event of a lead's history, for replaying the policy.
type HistoryEvent struct {
	ID             int64
	LeadID         int64
	Kind           string
	Class          string
	AddressInvalid bool
	SentMessageID  int64 // the send the event was matched to; 0: none
	OccurredAt     time.Time
}

// HistorySend is one registered send of a lead.
type HistorySend struct {
	ID     int64 // sent_messages.id
	SentAt time.Time
}

// LeadHistory returns, per lead, its events (by occurred_at, then id) and
// its sends (by sent_at, then id).
func LeadHistory(ctx context.Context, db *gorm.DB, workspaceID int64, leadIDs []int64) (map[int64][]HistoryEvent, map[int64][]HistorySend, error) {
	events := map[int64][]HistoryEvent{}
	sent := map[int64][]HistorySend{}
	if len(leadIDs) == 0 {
		return events, sent, nil
	}
	err := queryNamed(ctx, db, "lead-history-events", func(r *sql.Rows) error {
		var e HistoryEvent
		if err := r.Scan(&e.ID, &e.LeadID, &e.Kind, &e.Class, &e.AddressInvalid, &e.SentMessageID, &e.OccurredAt); err != nil {
			return err
		}
		e.OccurredAt = e.OccurredAt.UTC()
		events[e.LeadID] = append(events[e.LeadID], e)
		return nil
	}, workspaceID, leadIDs)
	if err != nil {
		return nil, nil, err
	}
	err = queryNamed(ctx, db, "lead-history-sent", func(r *sql.Rows) error {
		var lead int64
		var s HistorySend
		if err := r.Scan(&lead, &s.ID, &s.SentAt); err != nil {
			return err
		}
		s.SentAt = s.SentAt.UTC()
		sent[lead] = append(sent[lead], s)
		return nil
	}, workspaceID, leadIDs)
	if err != nil {
		return nil, nil, err
	}
	return events, sent, nil
}

// RawCandidate is a stored message due for reprocessing.
type RawCandidate struct {
	ID          int64
	WorkspaceID int64
	ReceivedAt  time.Time
}

// ReprocessCandidates returns up to limit stored messages received at or
// after since, ordered by (received_at, id) after the cursor (afterAt,
// afterID), across all workspaces.
func ReprocessCandidates(ctx context.Context, db *gorm.DB, since, afterAt time.Time, afterID int64, limit int) ([]RawCandidate, error) {
	var out []RawCandidate
	err := queryNamed(ctx, db, "reprocess-candidates", func(r *sql.Rows) error {
		var c RawCandidate
		if err := r.Scan(&c.ID, &c.WorkspaceID, &c.ReceivedAt); err != nil {
			return err
		}
		out = append(out, c)
		return nil
	}, since, afterAt, afterID, limit)
	return out, err
}

// LockRawMessages reads and locks stored messages of the workspace (content
// still compressed).
func LockRawMessages(ctx context.Context, db *gorm.DB, workspaceID int64, ids []int64) ([]RawMessage, error) {
	var out []RawMessage
	if len(ids) == 0 {
		return out, nil
	}
	err := queryNamed(ctx, db, "lock-raw-messages", func(r *sql.Rows) error {
		m := RawMessage{WorkspaceID: workspaceID}
		var mb int64
		if err := r.Scan(&m.ID, &m.Content, &mb, &m.ReceivedAt, &m.DecodeStatus, &m.DecodeError); err != nil {
			return err
		}
		if mb != 0 {
			m.MailboxID = &mb
		}
		m.ReceivedAt = m.ReceivedAt.UTC()
		out = append(out, m)
		return nil
	}, workspaceID, ids)
	return out, err
}

// RawDecodeUpdate is the new decode state of a stored message.
type RawDecodeUpdate struct {
	ID           int64  `json:"id"`
	DecodeStatus string `json:"decode_status"`
	DecodeError  string `json:"decode_error"`
	ResultCount  int    `json:"result_count"`
}

// UpdateRawDecode writes the decode state of stored messages and stamps
// them reprocessed at now.
func UpdateRawDecode(ctx context.Context, db *gorm.DB, workspaceID int64, rows []RawDecodeUpdate, now time.Time) error {
	if len(rows) == 0 {
		return nil
	}
	const name = "update-raw-decode"
	payload, err := bulk(name, rows)
	if err != nil {
		return err
	}
	_, err = execNamed(ctx, db, name, workspaceID, payload, now)
	return err
}

// SuppressingEvents returns the hard bounces and complaints of the
// workspace addressed to one of recipients, except the events except,
// oldest first per recipient (rows carry ID, Recipient, Kind, Class, Reason
// and AddressInvalid only). Reprocessing uses them to put back a
// suppression that a rewritten or deleted event had created while another
// event still calls for it.
func SuppressingEvents(ctx context.Context, db *gorm.DB, workspaceID int64, recipients []string, except []int64) ([]EventRow, error) {
	var out []EventRow
	if len(recipients) == 0 {
		return out, nil
	}
	err := queryNamed(ctx, db, "suppressing-events-by-recipient", func(r *sql.Rows) error {
		var e EventRow
		if err := r.Scan(&e.ID, &e.Recipient, &e.Kind, &e.Class, &e.Reason, &e.AddressInvalid); err != nil {
			return err
		}
		out = append(out, e)
		return nil
	}, workspaceID, recipients, nonNil(except))
	return out, err
}
