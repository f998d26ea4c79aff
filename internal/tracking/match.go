package tracking

import (
	"context"
	"strconv"
	"strings"

	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/store"
)

// Values of bounce_events.matched_by: the matching rule that tied an event
// to its campaign and lead (design.md, "Matching a bounce to its lead").
const (
	MatchedByHeader    = "header"     // rule 1: X-Rebound-Campaign / X-Rebound-Lead
	MatchedByMessageID = "message_id" // rule 2: original Message-ID in sent_messages
	MatchedByVERP      = "verp"       // rule 3: bounces+TOKEN@ in To / Delivered-To
	MatchedByRecipient = "recipient"  // rule 4: active lead with that address
)

// numericID parses a decimal identifier as carried in a header.
func numericID(v string) (int64, bool) {
	if v == "" || len(v) > 18 {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil && n > 0
}

// headerIDs returns the campaign and lead identifiers of a result's
// returned original.
func (s *Service) headerIDs(c *candidate) (campaign, lead string) {
	h := c.d.r.Original.XHeaders
	if h == nil {
		return "", ""
	}
	return strings.TrimSpace(h[s.opts.CampaignHeader]), strings.TrimSpace(h[s.opts.LeadHeader])
}

// match ties every candidate with needMatch to its campaign and lead, trying
// the rules of design.md in order with a fixed number of queries for the
// whole slice. A candidate that matches nothing stays unmatched. Then every
// candidate with a lead but no send (rule 1 or 4, or an earlier match kept
// by reprocessing) is tied to a send by tieSends.
func (s *Service) match(ctx context.Context, tx *gorm.DB, ws int64, cands []*candidate) error {
	if err := s.matchRules(ctx, tx, ws, cands); err != nil {
		return err
	}
	return s.tieSends(ctx, tx, ws, cands)
}

// tieSends ties each candidate that has a lead but no sent message to the
// lead's latest send at or before the event's occurred_at (the send
// SoftStreak would tie it to by time), setting SentMessageID and, when the
// send's mailbox is known, SendingMailboxID as matchSent does. A lead with no
// send by then leaves the event untied. One query for the whole slice.
func (s *Service) tieSends(ctx context.Context, tx *gorm.DB, ws int64, cands []*candidate) error {
	var todo []*candidate
	var keys []store.LeadAt
	for _, c := range cands {
		if c.row.LeadID != 0 && c.row.SentMessageID == 0 {
			todo = append(todo, c)
			keys = append(keys, store.LeadAt{LeadID: c.row.LeadID, At: c.row.OccurredAt})
		}
	}
	sends, err := store.LatestSendsAt(ctx, tx, ws, keys)
	if err != nil {
		return err
	}
	for i, c := range todo {
		if sm := sends[i]; sm.ID != 0 && sm.LeadID == c.row.LeadID {
			c.row.SentMessageID = sm.ID
			if sm.MailboxID != 0 {
				c.row.SendingMailboxID = sm.MailboxID
			}
		}
	}
	return nil
}

// matchRules applies matching rules 1-4 to the candidates with needMatch.
func (s *Service) matchRules(ctx context.Context, tx *gorm.DB, ws int64, cands []*candidate) error {
	var todo []*candidate
	for _, c := range cands {
		if c.needMatch {
			todo = append(todo, c)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	type hdr struct{ campaign, lead string }
	hdrs := make([]hdr, len(todo))

	// Rule 1 lookups: campaigns by ID and external ID, leads by ID.
	var campIDs, leadIDs []int64
	var campExt []string
	var msgIDs, tokens []string
	for i, c := range todo {
		hc, hl := s.headerIDs(c)
		hdrs[i] = hdr{hc, hl}
		if hc != "" {
			campExt = append(campExt, hc)
			if id, ok := numericID(hc); ok {
				campIDs = append(campIDs, id)
			}
		}
		if id, ok := numericID(hl); ok {
			leadIDs = append(leadIDs, id)
		}
		if c.row.OriginalMessageID != "" {
			msgIDs = append(msgIDs, c.row.OriginalMessageID)
		}
		tokens = append(tokens, c.p.tokens...)
	}
	found, err := store.FindIdentifiers(ctx, tx, ws, store.Identifiers{
		CampaignIDs: dedupe(campIDs), CampaignExts: dedupe(campExt), LeadIDs: dedupe(leadIDs),
		MessageIDs: dedupe(msgIDs), VERPTokens: dedupe(tokens),
	})
	if err != nil {
		return err
	}
	leadByID, sentByMsg, sentByToken := found.Leads, found.SentByMsgID, found.SentByToken
	// The campaign a header names: its ID first, else its external ID.
	campaignOf := func(v string) int64 {
		if id, ok := numericID(v); ok && found.Campaigns[id] {
			return id
		}
		return found.CampaignsByExt[v]
	}
	var extKeys, emailKeys []store.CampaignKey
	for i, c := range todo {
		camp := campaignOf(hdrs[i].campaign)
		if camp == 0 {
			continue
		}
		switch hl := hdrs[i].lead; {
		case hl == "":
			if c.row.Recipient != "" {
				emailKeys = append(emailKeys, store.CampaignKey{CampaignID: camp, Value: c.row.Recipient})
			}
		case leadByID[idOr0(hl)].CampaignID != camp:
			// Not a lead ID of this campaign: maybe its external ID.
			extKeys = append(extKeys, store.CampaignKey{CampaignID: camp, Value: hl})
		}
	}
	leadByExt, leadByEmail, err := store.FindCampaignLeads(ctx, tx, ws, dedupeKeys(extKeys), dedupeKeys(emailKeys))
	if err != nil {
		return err
	}

	campaignOnly := make([]int64, len(todo))
	var rest []int
	for i, c := range todo {
		c.needMatch = false
		c.row.MatchedBy, c.row.CampaignID, c.row.LeadID, c.row.SentMessageID = "", 0, 0, 0
		c.row.SendingMailboxID = c.p.in.MailboxID
		// Rule 1.
		camp := campaignOf(hdrs[i].campaign)
		var lead store.LeadRef
		if l, ok := leadByID[idOr0(hdrs[i].lead)]; ok && (camp == 0 || l.CampaignID == camp) {
			lead = l
		} else if l, ok := leadByExt[store.CampaignKey{CampaignID: camp, Value: hdrs[i].lead}]; ok && camp != 0 {
			lead = l
		} else if l, ok := leadByEmail[store.CampaignKey{CampaignID: camp, Value: c.row.Recipient}]; ok && camp != 0 && hdrs[i].lead == "" {
			lead = l
		}
		if lead.ID != 0 {
			c.row.MatchedBy, c.row.CampaignID, c.row.LeadID = MatchedByHeader, lead.CampaignID, lead.ID
			continue
		}
		campaignOnly[i] = camp
		// Rule 2.
		if sm, ok := sentByMsg[c.row.OriginalMessageID]; ok && c.row.OriginalMessageID != "" {
			s.matchSent(c, sm, MatchedByMessageID)
			continue
		}
		// Rule 3.
		matched := false
		for _, tok := range c.p.tokens {
			if sm, ok := sentByToken[tok]; ok {
				s.matchSent(c, sm, MatchedByVERP)
				matched = true
				break
			}
		}
		if !matched {
			rest = append(rest, i)
		}
	}
	// Rule 4 for what is left. Reprocessing (historic candidates) cannot
	// know which leads were active when the bounce arrived, so it takes the
	// leads that existed by then, whatever their status now.
	var emails []string
	var hist []store.EmailAt
	for _, i := range rest {
		c := todo[i]
		switch {
		case c.row.Recipient == "":
		case c.historic:
			hist = append(hist, store.EmailAt{Email: c.row.Recipient, At: c.row.OccurredAt})
		default:
			emails = append(emails, c.row.Recipient)
		}
	}
	active, err := store.ActiveLeadsByEmail(ctx, tx, ws, dedupe(emails))
	if err != nil {
		return err
	}
	then, err := store.LeadsByEmailAt(ctx, tx, ws, dedupe(hist))
	if err != nil {
		return err
	}
	for _, i := range rest {
		c := todo[i]
		l, ok := active[c.row.Recipient]
		if c.historic {
			l, ok = then[store.EmailAt{Email: c.row.Recipient, At: c.row.OccurredAt}]
		}
		if ok && c.row.Recipient != "" {
			c.row.MatchedBy, c.row.CampaignID, c.row.LeadID = MatchedByRecipient, l.CampaignID, l.ID
			continue
		}
		if campaignOnly[i] != 0 {
			c.row.MatchedBy, c.row.CampaignID = MatchedByHeader, campaignOnly[i]
		}
	}
	return nil
}

func (s *Service) matchSent(c *candidate, sm store.SentRef, by string) {
	c.row.MatchedBy, c.row.CampaignID, c.row.LeadID, c.row.SentMessageID = by, sm.CampaignID, sm.LeadID, sm.ID
	if sm.MailboxID != 0 {
		c.row.SendingMailboxID = sm.MailboxID
	}
}

func idOr0(v string) int64 {
	id, _ := numericID(v)
	return id
}

func dedupe[T comparable](in []T) []T {
	if len(in) < 2 {
		return in
	}
	seen := make(map[T]bool, len(in))
	out := in[:0:0]
	for _, v := range in {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func dedupeKeys(in []store.CampaignKey) []store.CampaignKey { return dedupe(in) }
