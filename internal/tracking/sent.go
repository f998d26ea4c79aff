package tracking

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/store"
)

// Sent is a message the sending side reports as sent to one lead.
type Sent struct {
	CampaignID int64
	LeadID     int64
	MailboxID  int64  // sending mailbox; 0 when not a connected mailbox
	MessageID  string // with or without angle brackets; required, unique per workspace
	VERPToken  string // the TOKEN of a bounces+TOKEN@ return path, or ""
	SentAt     time.Time
}

// SentOutcome says what RecordSent did with one Sent.
type SentOutcome struct {
	ID        int64 // sent_messages.id (0 for a duplicate)
	Duplicate bool  // the Message-ID was already registered: nothing changed
}

// ErrInvalidSent reports a Sent that names a lead outside its campaign or
// workspace, or lacks a Message-ID.
var ErrInvalidSent = errors.New("tracking: invalid sent message")

// RecordSent registers sent messages of one workspace in one transaction:
// the sent_messages rows (for matching), the "sent" report counters, the
// lead's last send time and timeline. A send does not reset the lead's
// soft-bounce counter: its outcome is not known yet (SoftStreak counts
// consecutive sends whose outcome was a soft bounce; a later delivery
// notice, or a later bounced send after it, shows it went through). A send
// dated at or before the lead's last event moves the counter when it ties earlier
// outcomes to itself (Policy.Restreak), as Reprocess would compute.
// A Message-ID already registered changes nothing. A Sent that is invalid
// fails the whole call with ErrInvalidSent.
func (s *Service) RecordSent(ctx context.Context, workspaceID int64, msgs []Sent) ([]SentOutcome, error) {
	now := s.opts.Now().UTC()
	for i := range msgs {
		msgs[i].MessageID = normMessageID(msgs[i].MessageID)
		if msgs[i].MessageID == "" {
			return nil, fmt.Errorf("%w: message %d has no Message-ID", ErrInvalidSent, i)
		}
		if msgs[i].SentAt.IsZero() {
			msgs[i].SentAt = now
		}
		msgs[i].SentAt = msgs[i].SentAt.UTC()
	}
	var outs []SentOutcome
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		outs = make([]SentOutcome, len(msgs))
		return s.recordSent(ctx, tx, workspaceID, now, msgs, outs)
	})
	return outs, err
}

func (s *Service) recordSent(ctx context.Context, tx *gorm.DB, ws int64, now time.Time, msgs []Sent, outs []SentOutcome) error {
	settings, err := store.LockWorkspacePolicy(ctx, tx, ws)
	if err != nil {
		return err
	}
	policy := DefaultPolicy().WithSettings(settings)
	var ids []int64
	for _, m := range msgs {
		ids = append(ids, m.LeadID)
	}
	leads, err := store.LockLeads(ctx, tx, ws, dedupe(ids))
	if err != nil {
		return err
	}
	rows := make([]store.SentInsert, 0, len(msgs))
	seen := map[string]bool{}
	for i, m := range msgs {
		l := leads[m.LeadID]
		if l == nil || l.CampaignID != m.CampaignID {
			return fmt.Errorf("%w: message %d: lead %d is not in campaign %d", ErrInvalidSent, i, m.LeadID, m.CampaignID)
		}
		if seen[m.MessageID] {
			continue
		}
		seen[m.MessageID] = true
		rows = append(rows, store.SentInsert{
			CampaignID: m.CampaignID, LeadID: m.LeadID, MailboxID: m.MailboxID, MessageID: m.MessageID,
			VERPToken: m.VERPToken, Recipient: l.Email, Provider: ProviderOfAddress(l.Email), SentAt: m.SentAt,
		})
	}
	newIDs, err := store.InsertSentMessages(ctx, tx, ws, rows)
	if err != nil {
		return err
	}
	deltas := store.NewCounterDeltas()
	work := map[int64]*leadWork{}
	var acts []store.ActivityRow
	late := map[int64]map[int64]bool{} // lead -> its new sends dated at or before its last event
	lateAct := map[int64]int{}         // lead -> acts index of the last of them
	var lateIDs []int64
	for i, m := range msgs {
		id, ok := newIDs[m.MessageID]
		if !ok {
			outs[i] = SentOutcome{Duplicate: true}
			continue
		}
		delete(newIDs, m.MessageID) // a repeat within msgs is a duplicate
		outs[i] = SentOutcome{ID: id}
		l := leads[m.LeadID]
		one := store.Metrics{Sent: 1}
		deltas.AddCampaign(m.CampaignID, one)
		deltas.AddDimension(store.DimensionKey{CampaignID: m.CampaignID, Dimension: store.DimensionProvider, Value: ProviderOfAddress(l.Email)}, one)
		deltas.AddDimension(store.DimensionKey{CampaignID: m.CampaignID, Dimension: store.DimensionMailbox, Value: mailboxValue(m.MailboxID)}, one)
		deltas.AddPeriod(m.CampaignID, m.SentAt, one)
		lw := work[l.ID]
		if lw == nil {
			lw = newLeadWork(l)
			work[l.ID] = lw
		}
		// A send's outcome is not known yet: registering it resets nothing.
		// Only a send dated at or before the lead's last event can move the
		// soft-bounce streak, by tying earlier outcomes to itself.
		if lw.state.Status != store.LeadStopped && lw.lastEvent != nil && !m.SentAt.After(*lw.lastEvent) {
			if late[l.ID] == nil {
				lateIDs = append(lateIDs, l.ID)
				late[l.ID] = map[int64]bool{}
			}
			late[l.ID][id] = true
			lateAct[l.ID] = len(acts)
		}
		lw.touchSent(m.SentAt)
		acts = append(acts, store.ActivityRow{
			LeadID: l.ID, CampaignID: m.CampaignID, Activity: "sent", SentMessageID: id,
			Summary: "sent " + m.MessageID, OccurredAt: m.SentAt,
		})
	}
	if len(lateIDs) > 0 {
		slices.Sort(lateIDs)
		events, sends, err := store.LeadHistory(ctx, tx, ws, lateIDs)
		if err != nil {
			return err
		}
		for _, id := range lateIDs {
			lw := work[id]
			before := newLeadHistory(events[id], sends[id], nil, late[id]).streak()
			after := newLeadHistory(events[id], sends[id], nil, nil).streak()
			var eff Effect
			lw.state, eff = policy.Restreak(lw.state, before, after, *lw.lastEvent)
			acts[lateAct[id]].Effect = eff.String()
		}
	}
	return s.writeEffects(ctx, tx, ws, now, work, acts, newSuppressionSet(), nil, deltas)
}

// providerDomains maps recipient domains to the receiving provider of the
// report's per-provider rows. Hosted domains of these providers (Google
// Workspace, Microsoft 365) are only told apart by their MX hosts, which the
// bounce itself reports (dsn.Result.Provider); for sent counts the domain is
// all there is.
var providerDomains = map[string]string{
	"gmail.com": "google", "googlemail.com": "google",
	"outlook.com": "microsoft", "hotmail.com": "microsoft", "live.com": "microsoft", "msn.com": "microsoft",
	"hotmail.co.uk": "microsoft", "outlook.fr": "microsoft", "hotmail.fr": "microsoft", "live.co.uk": "microsoft",
	"yahoo.com": "yahoo", "ymail.com": "yahoo", "rocketmail.com": "yahoo", "yahoo.co.uk": "yahoo",
	"yahoo.fr": "yahoo", "yahoo.co.jp": "yahoo", "aol.com": "yahoo",
	"icloud.com": "apple", "me.com": "apple", "mac.com": "apple",
}

// ProviderOfAddress returns the receiving provider of an address by its
// domain: google, microsoft, yahoo, apple or other.
func ProviderOfAddress(addr string) string {
	at := strings.LastIndexByte(addr, '@')
	if at < 0 {
		return "other"
	}
	if p, ok := providerDomains[strings.ToLower(addr[at+1:])]; ok {
		return p
	}
	return "other"
}
