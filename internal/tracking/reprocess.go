package tracking

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/store"
)

// ReprocessOptions select the stored messages Reprocess re-decodes.
type ReprocessOptions struct {
	// Since selects messages received at or after it (zero: all).
	Since time.Time
	// BatchSize is the number of messages per transaction (default 200).
	BatchSize int
	// Progress, when set, is called after every committed batch.
	Progress func(ReprocessStats)
}

// ReprocessStats count what Reprocess did.
type ReprocessStats struct {
	Messages       int // stored messages re-decoded
	Changed        int // messages whose events changed
	EventsCreated  int
	EventsUpdated  int
	EventsDeleted  int
	LeadsReplayed  int // leads whose state was recomputed from their history
	UndecodedAfter int // messages still undecoded
	Skipped        int // messages whose bytes are no longer kept (left as they are)
}

// Reprocess re-decodes stored messages with the current decoder and
// classifier and corrects what their events say, batch by batch, each batch
// one transaction per workspace under the workspace's recording lock:
//
//   - an event whose result is unchanged is left alone (so running Reprocess
//     twice changes nothing the second time);
//   - a changed result rewrites its event in place (same ID), a result that
//     disappeared deletes its event, a new one (a message that decodes now)
//     creates one; matching keeps an event's existing match while its
//     recipient is unchanged and runs the matching rules otherwise (rule 4
//     then takes the leads that existed when the message arrived, whatever
//     their status now);
//   - counters are adjusted exactly: minus what the old event contributed,
//     plus what the new one does;
//   - timeline entries and suppressions created by a changed or deleted
//     event are replaced by those of its new version;
//   - every lead touched has its state recomputed by replaying the policy
//     over its whole history (events in time order, the soft-bounce streak
//     from SoftStreak); a lead stopped by the sending side (a stop reason
//     the policy does not write) stays stopped. A manual reactivation is
//     not part of the history: replay starts from the events alone.
func (s *Service) Reprocess(ctx context.Context, opt ReprocessOptions) (ReprocessStats, error) {
	var st ReprocessStats
	if opt.BatchSize <= 0 {
		opt.BatchSize = 200
	}
	since := opt.Since.UTC()
	if opt.Since.IsZero() {
		since = time.Unix(0, 0).UTC()
	}
	afterAt, afterID := since, int64(0)
	for {
		cands, err := store.ReprocessCandidates(ctx, s.db.WithContext(ctx), since, afterAt, afterID, opt.BatchSize)
		if err != nil {
			return st, fmt.Errorf("tracking: reprocess: %w", err)
		}
		if len(cands) == 0 {
			return st, nil
		}
		groups := map[int64][]int64{}
		var wss []int64
		for _, c := range cands {
			if _, ok := groups[c.WorkspaceID]; !ok {
				wss = append(wss, c.WorkspaceID)
			}
			groups[c.WorkspaceID] = append(groups[c.WorkspaceID], c.ID)
		}
		slices.Sort(wss)
		for _, ws := range wss {
			var bst ReprocessStats
			err := s.inTx(ctx, func(tx *gorm.DB) error {
				bst = ReprocessStats{}
				return s.reprocessGroup(ctx, tx, ws, groups[ws], &bst)
			})
			if err != nil {
				return st, fmt.Errorf("tracking: reprocess workspace %d: %w", ws, err)
			}
			st.add(bst)
		}
		last := cands[len(cands)-1]
		afterAt, afterID = last.ReceivedAt, last.ID
		if opt.Progress != nil {
			opt.Progress(st)
		}
	}
}

func (st *ReprocessStats) add(o ReprocessStats) {
	st.Messages += o.Messages
	st.Changed += o.Changed
	st.EventsCreated += o.EventsCreated
	st.EventsUpdated += o.EventsUpdated
	st.EventsDeleted += o.EventsDeleted
	st.LeadsReplayed += o.LeadsReplayed
	st.UndecodedAfter += o.UndecodedAfter
	st.Skipped += o.Skipped
}

func (s *Service) reprocessGroup(ctx context.Context, tx *gorm.DB, ws int64, rawIDs []int64, st *ReprocessStats) error {
	now := s.opts.Now().UTC()
	settings, err := store.LockWorkspacePolicy(ctx, tx, ws)
	if err != nil {
		return err
	}
	policy := DefaultPolicy().WithSettings(settings)
	raws, err := store.LockRawMessages(ctx, tx, ws, rawIDs)
	if err != nil {
		return err
	}
	olds, err := store.EventsOfRawMessages(ctx, tx, ws, rawIDs)
	if err != nil {
		return err
	}
	oldBy := map[store.EventKey]store.EventRow{}
	oldByID := map[int64]store.EventRow{}
	for _, o := range olds {
		oldBy[store.EventKey{RawMessageID: o.RawMessageID, ResultIndex: o.ResultIndex}] = o
		oldByID[o.ID] = o
	}

	// Decode again; keep existing matches where the recipient is unchanged.
	var all []*candidate
	var rawUpdates []store.RawDecodeUpdate
	newBy := map[store.EventKey]*candidate{}
	purged := map[int64]bool{}
	for _, r := range raws {
		if len(r.Content) == 0 {
			// Bytes emptied by retention housekeeping: nothing to re-decode;
			// the message's events stay as they are (left out of the diff
			// below).
			st.Skipped++
			purged[r.ID] = true
			continue
		}
		b, err := Decompress(r.Content)
		if err != nil {
			return fmt.Errorf("stored message %d: %w", r.ID, err)
		}
		var mb int64
		if r.MailboxID != nil {
			mb = *r.MailboxID
		}
		p := &prepared{pos: -1, in: Incoming{WorkspaceID: ws, MailboxID: mb}, receivedAt: r.ReceivedAt, rawID: r.ID}
		s.decodeInto(p, b)
		st.Messages++
		if p.status == store.DecodeUndecoded {
			st.UndecodedAfter++
		}
		rawUpdates = append(rawUpdates, store.RawDecodeUpdate{ID: r.ID, DecodeStatus: p.status, DecodeError: p.decodeErr, ResultCount: len(p.results)})
		for _, d := range p.results {
			c := s.newCandidate(p, d)
			c.historic = true
			key := store.EventKey{RawMessageID: r.ID, ResultIndex: d.index}
			if o, ok := oldBy[key]; ok && o.Recipient == c.row.Recipient && o.MatchedBy != "" {
				c.row.MatchedBy, c.row.CampaignID, c.row.LeadID = o.MatchedBy, o.CampaignID, o.LeadID
				c.row.SentMessageID, c.row.SendingMailboxID = o.SentMessageID, o.SendingMailboxID
				c.needMatch = false
			}
			all = append(all, c)
			newBy[key] = c
		}
	}
	for key := range oldBy {
		if purged[key.RawMessageID] {
			delete(oldBy, key)
		}
	}
	if err := s.match(ctx, tx, ws, all); err != nil {
		return err
	}

	// Diff old and new events.
	deltas := store.NewCounterDeltas()
	affected := map[int64]bool{}
	var updates, inserts []store.EventRow
	var fresh []*candidate // new or changed events, for timeline and suppressions
	var gone, rewritten []int64
	changedRaw := map[int64]bool{}
	for key, c := range newBy {
		o, had := oldBy[key]
		if had {
			c.row.ID = o.ID
			if o == c.row {
				continue
			}
			updates = append(updates, c.row)
			rewritten = append(rewritten, o.ID)
			addEvent(deltas, o, -1)
			affected[o.LeadID] = true
		} else {
			inserts = append(inserts, c.row)
		}
		addEvent(deltas, c.row, 1)
		affected[c.row.LeadID] = true
		fresh = append(fresh, c)
		changedRaw[key.RawMessageID] = true
	}
	for key, o := range oldBy {
		if _, ok := newBy[key]; ok {
			continue
		}
		gone = append(gone, o.ID)
		addEvent(deltas, o, -1)
		affected[o.LeadID] = true
		changedRaw[key.RawMessageID] = true
	}
	delete(affected, 0)
	st.Changed += len(changedRaw)
	st.EventsUpdated += len(updates)
	st.EventsCreated += len(inserts)
	st.EventsDeleted += len(gone)

	slices.Sort(rewritten)
	slices.Sort(gone)
	slices.SortFunc(updates, func(a, b store.EventRow) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(inserts, func(a, b store.EventRow) int {
		return cmp.Or(cmp.Compare(a.RawMessageID, b.RawMessageID), cmp.Compare(a.ResultIndex, b.ResultIndex))
	})
	if err := store.DeleteEventEffects(ctx, tx, ws, rewritten); err != nil {
		return err
	}
	if err := store.DeleteBounceEvents(ctx, tx, ws, gone); err != nil {
		return err
	}
	if err := store.UpdateBounceEvents(ctx, tx, ws, updates, now); err != nil {
		return err
	}
	ids, err := store.InsertBounceEvents(ctx, tx, ws, inserts, now)
	if err != nil {
		return err
	}
	for _, c := range fresh {
		if c.row.ID == 0 {
			id, ok := ids[store.EventKey{RawMessageID: c.row.RawMessageID, ResultIndex: c.row.ResultIndex}]
			if !ok {
				return fmt.Errorf("event %d/%d was not created", c.row.RawMessageID, c.row.ResultIndex)
			}
			c.row.ID = id
		}
	}

	// Replay the policy over the whole history of every affected lead.
	var leadIDs []int64
	for id := range affected {
		leadIDs = append(leadIDs, id)
	}
	slices.Sort(leadIDs)
	leads, err := store.LockLeads(ctx, tx, ws, leadIDs)
	if err != nil {
		return err
	}
	hist, sent, err := store.LeadHistory(ctx, tx, ws, leadIDs)
	if err != nil {
		return err
	}
	work := map[int64]*leadWork{}
	effects := map[int64]Effect{}
	for _, id := range leadIDs {
		l := leads[id]
		if l == nil {
			continue
		}
		work[id] = replay(policy, l, hist[id], sent[id], effects)
	}
	st.LeadsReplayed += len(work)

	slices.SortFunc(fresh, func(a, b *candidate) int { return cmp.Compare(a.row.ID, b.row.ID) })
	var acts []store.ActivityRow
	supps := newSuppressionSet()
	signals := map[int64]store.SignalRow{}
	for _, c := range fresh {
		sig := signalOf(c.row)
		suppressed := policy.Suppresses(sig) && c.row.Recipient != ""
		if suppressed {
			supps.add(c.row)
		}
		if c.row.LeadID != 0 && leads[c.row.LeadID] != nil {
			acts = append(acts, activityOf(c.row, effects[c.row.ID], suppressed))
		}
		if sr, ok := signalRowOf(c.row); ok {
			if cur, seen := signals[sr.CampaignID]; !seen || cur.At.Before(sr.At) {
				signals[sr.CampaignID] = sr
			}
		}
	}
	// A suppression a rewritten or deleted event created is gone with it;
	// put it back when another event of the workspace still calls for it.
	var lost []string
	seenLost := map[string]bool{}
	for _, id := range append(slices.Clone(rewritten), gone...) {
		o := oldByID[id]
		if o.Recipient != "" && policy.Suppresses(signalOf(o)) && !seenLost[o.Recipient] {
			seenLost[o.Recipient] = true
			lost = append(lost, o.Recipient)
		}
	}
	if len(lost) > 0 {
		slices.Sort(lost)
		others, err := store.SuppressingEvents(ctx, tx, ws, lost, append(slices.Clone(rewritten), gone...))
		if err != nil {
			return err
		}
		for _, e := range others {
			if policy.Suppresses(signalOf(e)) {
				supps.add(e)
			}
		}
	}
	if err := s.writeEffects(ctx, tx, ws, now, work, acts, supps, signals, deltas); err != nil {
		return err
	}
	slices.SortFunc(rawUpdates, func(a, b store.RawDecodeUpdate) int { return cmp.Compare(a.ID, b.ID) })
	return store.UpdateRawDecode(ctx, tx, ws, rawUpdates, now)
}

// replay recomputes a lead's state from its history: its events in time
// order, from a fresh active lead, through the policy, each bounce or
// delivery notice moving the soft-bounce streak as SoftStreak computes it
// over the lead's sends and the events before it (what recording computes
// when events arrive in time order). Sends only tie outcomes to sends: a
// registered send resets nothing. The effect of each event is stored in
// effects by event ID.
func replay(p Policy, l *store.Lead, events []store.HistoryEvent, sent []store.HistorySend, effects map[int64]Effect) *leadWork {
	lw := newLeadWork(l)
	st := LeadState{Status: store.LeadActive}
	switch {
	case l.Status == store.LeadStopped && !isPolicyStop(l.StopReason):
		st = LeadState{Status: store.LeadStopped, StopReason: l.StopReason, StoppedAt: lw.state.StoppedAt}
	case l.Status != store.LeadStopped:
		st.Status = l.Status // active, paused or completed, as the sending side set it
	}
	lw.lastEvent, lw.lastSent = nil, nil
	for _, s := range sent {
		lw.touchSent(s.SentAt)
	}
	h := newLeadHistory(nil, sent, nil, nil)
	for _, e := range events {
		sig := Signal{Kind: e.Kind, Class: e.Class, AddressInvalid: e.AddressInvalid, At: e.OccurredAt}
		if movesStreak(e.Kind) {
			h.observe(&sig, StreakEvent{ID: e.ID, Kind: e.Kind, Class: e.Class, SentID: e.SentMessageID, At: e.OccurredAt})
		}
		var eff Effect
		st, eff = p.Apply(st, sig)
		effects[e.ID] = eff
		lw.touch(e.OccurredAt)
	}
	lw.state = st
	return lw
}
