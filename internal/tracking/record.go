package tracking

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/classify"
	"github.com/rebound-hq/rebound/internal/dsn"
	"github.com/rebound-hq/rebound/internal/store"
)

// prepared is one Incoming after the work done outside the transaction:
// hashing, then (unless stored, or a later copy in its batch) compression,
// decoding and classification.
type prepared struct {
	pos        int // index in the batch (-1 in reprocessing)
	in         Incoming
	hash       string // hex DedupeHash
	content    []byte // gzip
	receivedAt time.Time
	status     string
	decodeErr  string
	results    []decoded
	tokens     []string // VERP tokens of the message's envelope fields
	stored     bool     // held by the workspace before the batch: only hashed

	rawID int64
	isNew bool
}

// decoded is one result of a message with its verdict; index is its
// position in the decoder's output (the event's result_index).
type decoded struct {
	index int
	r     dsn.Result
	v     classify.Verdict
}

// maxDiagnostic bounds the diagnostic text kept on an event, in bytes.
const maxDiagnostic = 4000

// decodeInto decodes raw into p's status, error, results and VERP tokens.
// A decoder panic is caught and stored as an undecoded message: no input may
// stop a sync.
func (s *Service) decodeInto(p *prepared, raw []byte) {
	p.status, p.decodeErr, p.results, p.tokens = store.DecodeUndecoded, "", nil, nil
	var res []dsn.Result
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("tracking: decoder panic: %v", r)
			}
		}()
		res, err = s.opts.Decode(raw)
	}()
	if err != nil {
		p.decodeErr = cleanText(err.Error(), 2000)
		return
	}
	if len(res) == 0 {
		p.decodeErr = "tracking: decoder returned no result"
		return
	}
	for i, r := range res {
		if r.Kind == dsn.KindNotBounce {
			continue
		}
		p.results = append(p.results, decoded{index: i, r: r, v: s.opts.Classify(r)})
	}
	if len(p.results) == 0 {
		p.status = store.DecodeNotBounce
		return
	}
	p.status = store.DecodeDecoded
	p.tokens = verpTokens(raw, s.opts.VERPPrefix)
}

// byWorkspace groups preps by workspace, workspaces in ascending order (the
// order their locks are taken), messages in batch order.
func byWorkspace(preps []*prepared) [][]*prepared {
	m := map[int64][]*prepared{}
	var ids []int64
	for _, p := range preps {
		if _, ok := m[p.in.WorkspaceID]; !ok {
			ids = append(ids, p.in.WorkspaceID)
		}
		m[p.in.WorkspaceID] = append(m[p.in.WorkspaceID], p)
	}
	slices.Sort(ids)
	out := make([][]*prepared, 0, len(ids))
	for _, id := range ids {
		out = append(out, m[id])
	}
	return out
}

// candidate is one result on its way to becoming a bounce event.
type candidate struct {
	p         *prepared
	d         decoded
	row       store.EventRow
	needMatch bool
	historic  bool // reprocessing: matched as of the event's time
}

// newCandidate builds the event row of one result, unmatched.
func (s *Service) newCandidate(p *prepared, d decoded) *candidate {
	kind := string(d.r.Kind)
	if kind == "" {
		kind = string(dsn.KindBounce)
	}
	class := d.v.Class
	if kind != string(dsn.KindBounce) {
		class = ""
	}
	provider := string(d.r.Provider)
	if provider == "" {
		provider = string(dsn.ProviderOther)
	}
	entry := s.opts.CodeEntry(d.r)
	diag := d.r.Diagnostic
	if len(diag) > maxDiagnostic {
		diag = diag[:maxDiagnostic]
	}
	return &candidate{p: p, d: d, needMatch: true, row: store.EventRow{
		RawMessageID:      p.rawID,
		ResultIndex:       d.index,
		Kind:              kind,
		Class:             class,
		Reason:            cleanText(d.v.Reason, 64),
		Label:             cleanText(d.v.Label, 64),
		AddressInvalid:    d.v.AddressInvalid,
		Status:            cleanText(d.r.Status, 32),
		ReplyCode:         cleanText(d.r.ReplyCode, 32),
		CodeEntryID:       cleanText(entry, 128),
		Diagnostic:        cleanText(diag, maxDiagnostic),
		RemoteMTA:         cleanText(d.r.RemoteMTA, 255),
		ReportingMTA:      cleanText(d.r.ReportingMTA, 255),
		Provider:          cleanText(provider, 32),
		FeedbackType:      cleanText(d.r.FeedbackType, 64),
		Format:            cleanText(d.r.Format, 64),
		Recipient:         cleanText(normAddress(d.r.Recipient), 320),
		OriginalMessageID: cleanText(normMessageID(d.r.Original.MessageID), 998),
		SendingMailboxID:  p.in.MailboxID,
		OccurredAt:        p.receivedAt,
	}}
}

// cleanText makes s storable in a PostgreSQL text column whatever the
// message held: invalid UTF-8 and NUL bytes (which text refuses) are
// dropped, and the result is cut to at most max bytes on a rune boundary.
func cleanText(s string, max int) string {
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	s = strings.ToValidUTF8(s, "")
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s
}

func normAddress(a string) string {
	return strings.ToLower(strings.Trim(strings.TrimSpace(a), "<>"))
}

func normMessageID(id string) string {
	return strings.Trim(strings.TrimSpace(id), "<>")
}

// recordWorkspace records one workspace's part of a batch; outcomes are
// filled at the messages' batch positions.
func (s *Service) recordWorkspace(ctx context.Context, tx *gorm.DB, now time.Time, group []*prepared, outcomes []Outcome) error {
	ws := group[0].in.WorkspaceID
	settings, err := store.LockWorkspacePolicy(ctx, tx, ws)
	if err != nil {
		return err
	}
	policy := DefaultPolicy().WithSettings(settings)

	// Store the raw messages; copies within the batch point at the first.
	first := map[string]*prepared{}
	var fresh []*prepared
	var rows []store.RawInsert
	for _, p := range group {
		p.rawID, p.isNew = 0, false
		if _, ok := first[p.hash]; ok {
			continue
		}
		first[p.hash] = p
		fresh = append(fresh, p)
		if p.stored {
			continue
		}
		rows = append(rows, store.RawInsert{
			Hash: p.hash, Content: p.content, Size: len(p.in.Raw), MailboxID: p.in.MailboxID,
			Folder: cleanText(p.in.Folder, 1000), UIDValidity: int64(p.in.UIDValidity), UID: int64(p.in.UID),
			ReceivedAt: p.receivedAt, DecodeStatus: p.status, DecodeError: p.decodeErr,
			ResultCount: len(p.results),
		})
	}
	ids, err := store.InsertRawMessages(ctx, tx, ws, rows)
	if err != nil {
		return err
	}
	var known []string
	for _, p := range fresh {
		if id, ok := ids[p.hash]; ok {
			p.rawID, p.isNew = id, true
		} else {
			known = append(known, p.hash)
		}
	}
	refs, err := store.FindRawMessages(ctx, tx, ws, known)
	if err != nil {
		return err
	}
	for _, p := range group {
		f := first[p.hash]
		if f.isNew {
			p.rawID = f.rawID
			if p == f {
				outcomes[p.pos] = Outcome{RawMessageID: p.rawID, DecodeStatus: p.status, DecodeError: p.decodeErr}
			} else {
				outcomes[p.pos] = Outcome{RawMessageID: p.rawID, Duplicate: true, DecodeStatus: f.status, DecodeError: f.decodeErr}
			}
			continue
		}
		ref, ok := refs[p.hash]
		if !ok {
			return fmt.Errorf("tracking: stored message %s vanished during recording", p.hash)
		}
		p.rawID = ref.ID
		outcomes[p.pos] = Outcome{RawMessageID: ref.ID, Duplicate: true, DecodeStatus: ref.DecodeStatus, DecodeError: ref.DecodeError}
	}

	// One event per result of every new message.
	var cands []*candidate
	for _, p := range fresh {
		if !p.isNew {
			continue
		}
		for _, d := range p.results {
			cands = append(cands, s.newCandidate(p, d))
		}
	}
	if len(cands) == 0 {
		return nil
	}
	if err := s.match(ctx, tx, ws, cands); err != nil {
		return err
	}
	leads, err := store.LockLeads(ctx, tx, ws, leadIDsOf(cands))
	if err != nil {
		return err
	}
	evRows := make([]store.EventRow, len(cands))
	for i, c := range cands {
		if c.row.LeadID != 0 && leads[c.row.LeadID] == nil {
			c.row.LeadID = 0 // deleted since matching: keep the campaign
		}
		evRows[i] = c.row
	}
	evIDs, err := store.InsertBounceEvents(ctx, tx, ws, evRows, now)
	if err != nil {
		return err
	}

	hists, err := s.streakHistories(ctx, tx, ws, cands, leads, evIDs)
	if err != nil {
		return err
	}

	deltas := store.NewCounterDeltas()
	work := map[int64]*leadWork{}
	var acts []store.ActivityRow
	supps := newSuppressionSet()
	signals := map[int64]store.SignalRow{}
	for _, c := range cands {
		id, ok := evIDs[store.EventKey{RawMessageID: c.row.RawMessageID, ResultIndex: c.row.ResultIndex}]
		if !ok {
			return fmt.Errorf("tracking: event %d/%d of a new message already exists", c.row.RawMessageID, c.row.ResultIndex)
		}
		c.row.ID = id
		addEvent(deltas, c.row, 1)
		sig := signalOf(c.row)
		var eff Effect
		if c.row.LeadID != 0 {
			lw := work[c.row.LeadID]
			if lw == nil {
				lw = newLeadWork(leads[c.row.LeadID])
				work[c.row.LeadID] = lw
			}
			if h := hists[c.row.LeadID]; h != nil {
				h.observe(&sig, streakEventOf(c.row))
			}
			lw.state, eff = policy.Apply(lw.state, sig)
			lw.touch(sig.At)
		}
		suppressed := policy.Suppresses(sig) && c.row.Recipient != ""
		if suppressed {
			supps.add(c.row)
		}
		if c.row.LeadID != 0 {
			acts = append(acts, activityOf(c.row, eff, suppressed))
		}
		if sr, ok := signalRowOf(c.row); ok {
			if cur, seen := signals[sr.CampaignID]; !seen || cur.At.Before(sr.At) {
				signals[sr.CampaignID] = sr
			}
		}
		out := &outcomes[c.p.pos]
		out.Events = append(out.Events, EventOutcome{
			EventID: id, Kind: c.row.Kind, Class: c.row.Class, Reason: c.row.Reason, Label: c.row.Label,
			AddressInvalid: c.row.AddressInvalid, Recipient: c.row.Recipient, CampaignID: c.row.CampaignID,
			LeadID: c.row.LeadID, MatchedBy: c.row.MatchedBy, Effect: eff.String(), Suppressed: suppressed,
		})
	}
	return s.writeEffects(ctx, tx, ws, now, work, acts, supps, signals, deltas)
}

// writeEffects writes what recording or reprocessing decided besides the
// events themselves.
func (s *Service) writeEffects(ctx context.Context, tx *gorm.DB, ws int64, now time.Time, work map[int64]*leadWork,
	acts []store.ActivityRow, supps *suppressionSet, signals map[int64]store.SignalRow, deltas *store.CounterDeltas) error {
	var updates []store.LeadUpdate
	for _, lw := range sortedWork(work) {
		if d := lw.leadsBouncedDelta(); d != 0 {
			deltas.AddLeadsBounced(lw.lead.CampaignID, d)
		}
		updates = append(updates, lw.update())
	}
	var sigRows []store.SignalRow
	for _, sr := range signals {
		sigRows = append(sigRows, sr)
	}
	slices.SortFunc(sigRows, func(a, b store.SignalRow) int { return cmp.Compare(a.CampaignID, b.CampaignID) })
	effects := store.Effects{Activities: acts, Leads: updates, Suppressions: supps.rows, Signals: sigRows}
	if err := store.WriteEffects(ctx, tx, ws, effects, now); err != nil {
		return err
	}
	return store.ApplyCounterDeltas(ctx, tx, ws, deltas)
}

func leadIDsOf(cands []*candidate) []int64 {
	var ids []int64
	seen := map[int64]bool{}
	for _, c := range cands {
		if id := c.row.LeadID; id != 0 && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// movesStreak reports whether an event of this kind can move a lead's
// soft-bounce streak (SoftStreak): bounces and delivery notices.
func movesStreak(kind string) bool { return kind == "bounce" || kind == "delivered" }

// streakEventOf is SoftStreak's view of an event.
func streakEventOf(e store.EventRow) StreakEvent {
	return StreakEvent{ID: e.ID, Kind: e.Kind, Class: e.Class, SentID: e.SentMessageID, At: e.OccurredAt}
}

// streakHistories loads, for every lead of the batch that is not stopped
// and gets a bounce or delivery notice, its sends and its earlier events
// (the batch's new events, already inserted, are left out: the caller adds
// them one by one in batch order).
func (s *Service) streakHistories(ctx context.Context, tx *gorm.DB, ws int64, cands []*candidate,
	leads map[int64]*store.Lead, evIDs map[store.EventKey]int64) (map[int64]*leadHistory, error) {
	var ids []int64
	seen := map[int64]bool{}
	for _, c := range cands {
		l := leads[c.row.LeadID]
		if l == nil || l.Status == store.LeadStopped || !movesStreak(c.row.Kind) || seen[l.ID] {
			continue
		}
		seen[l.ID] = true
		ids = append(ids, l.ID)
	}
	out := map[int64]*leadHistory{}
	if len(ids) == 0 {
		return out, nil
	}
	slices.Sort(ids)
	events, sends, err := store.LeadHistory(ctx, tx, ws, ids)
	if err != nil {
		return nil, err
	}
	skip := make(map[int64]bool, len(evIDs))
	for _, id := range evIDs {
		skip[id] = true
	}
	for _, id := range ids {
		out[id] = newLeadHistory(events[id], sends[id], skip, nil)
	}
	return out, nil
}

// signalOf is the policy's view of an event.
func signalOf(e store.EventRow) Signal {
	return Signal{Kind: e.Kind, Class: e.Class, AddressInvalid: e.AddressInvalid, At: e.OccurredAt}
}

// senderSideLabels are the labels whose hard bounces raise a campaign's
// deliverability signal (classification.md).
var senderSideLabels = map[string]bool{
	classify.LabelBlocked:       true,
	classify.LabelSpamOrContent: true,
	classify.LabelPolicyOrAuth:  true,
}

func signalRowOf(e store.EventRow) (store.SignalRow, bool) {
	if e.CampaignID == 0 || e.Class != classify.ClassHard || !senderSideLabels[e.Label] {
		return store.SignalRow{}, false
	}
	return store.SignalRow{CampaignID: e.CampaignID, At: e.OccurredAt, Label: e.Label}, true
}

// metricsOf is what one event adds to the counters it touches.
func metricsOf(e store.EventRow) store.Metrics {
	m := store.Metrics{Events: 1}
	switch e.Kind {
	case "bounce":
		m.Bounced = 1
		switch e.Class {
		case classify.ClassHard:
			m.Hard = 1
		case classify.ClassSoft:
			m.Soft = 1
		}
	case "complaint":
		m.Complaints = 1
	case "auto_reply":
		m.AutoReplies = 1
	case "delayed":
		m.Delayed = 1
	case "delivered":
		m.Delivered = 1
	}
	return m
}

func scale(m store.Metrics, sign int64) store.Metrics {
	return store.Metrics{
		Sent: m.Sent * sign, Events: m.Events * sign, Bounced: m.Bounced * sign, Hard: m.Hard * sign,
		Soft: m.Soft * sign, Complaints: m.Complaints * sign, AutoReplies: m.AutoReplies * sign,
		Delayed: m.Delayed * sign, Delivered: m.Delivered * sign,
	}
}

func mailboxValue(id int64) string {
	if id == 0 {
		return ""
	}
	return strconv.FormatInt(id, 10)
}

// addEvent adds (sign +1) or removes (sign -1) one event's contribution to
// every counter table. Leads bounced is handled by leadWork.
func addEvent(d *store.CounterDeltas, e store.EventRow, sign int64) {
	m := scale(metricsOf(e), sign)
	d.AddCampaign(e.CampaignID, m)
	d.AddDimension(store.DimensionKey{CampaignID: e.CampaignID, Dimension: store.DimensionProvider, Value: e.Provider}, m)
	d.AddDimension(store.DimensionKey{CampaignID: e.CampaignID, Dimension: store.DimensionMailbox, Value: mailboxValue(e.SendingMailboxID)}, m)
	code := e.Status
	if code == "" {
		code = e.ReplyCode
	}
	d.AddLabel(store.LabelKey{CampaignID: e.CampaignID, Label: e.Label, Class: e.Class, Code: code}, sign)
	d.AddPeriod(e.CampaignID, e.OccurredAt, m)
}

// activityOf is the timeline entry of an event, linked to the event's
// send when it has one.
func activityOf(e store.EventRow, eff Effect, suppressed bool) store.ActivityRow {
	effect := eff.String()
	if suppressed {
		if effect != "" {
			effect += "; "
		}
		effect += "address suppressed"
	}
	return store.ActivityRow{
		LeadID: e.LeadID, CampaignID: e.CampaignID, Activity: e.Kind, BounceEventID: e.ID,
		SentMessageID: e.SentMessageID, Summary: summaryOf(e), Effect: effect, OccurredAt: e.OccurredAt,
	}
}

// summaryOf is a one-line description of an event for the timeline.
func summaryOf(e store.EventRow) string {
	var b strings.Builder
	switch e.Kind {
	case "bounce":
		b.WriteString(e.Class)
		b.WriteString(" bounce")
	case "auto_reply":
		b.WriteString("auto-reply")
	default:
		b.WriteString(e.Kind)
	}
	var parts []string
	if e.Reason != "" {
		parts = append(parts, e.Reason)
	}
	if e.Status != "" {
		parts = append(parts, e.Status)
	} else if e.ReplyCode != "" {
		parts = append(parts, e.ReplyCode)
	}
	if e.FeedbackType != "" {
		parts = append(parts, e.FeedbackType)
	}
	if len(parts) > 0 {
		b.WriteString(" (" + strings.Join(parts, ", ") + ")")
	}
	if e.Diagnostic != "" {
		d := e.Diagnostic
		if len(d) > 200 {
			d = strings.ToValidUTF8(d[:200], "") + "…"
		}
		b.WriteString(": " + d)
	}
	return b.String()
}

// suppressionSet collects suppressions, one per address (the first wins).
type suppressionSet struct {
	rows []store.SuppressionRow
	seen map[string]bool
}

func newSuppressionSet() *suppressionSet { return &suppressionSet{seen: map[string]bool{}} }

func (s *suppressionSet) add(e store.EventRow) {
	if s.seen[e.Recipient] {
		return
	}
	s.seen[e.Recipient] = true
	row := store.SuppressionRow{Email: e.Recipient, Reason: e.Reason, Source: "bounce", SourceEventID: e.ID}
	if e.Kind == "complaint" {
		row.Reason, row.Source = "complaint", "complaint"
	}
	s.rows = append(s.rows, row)
}

// leadWork is a lead being changed within a transaction.
type leadWork struct {
	lead      *store.Lead
	state     LeadState
	oldCount  int
	lastEvent *time.Time
	lastSent  *time.Time
}

func newLeadWork(l *store.Lead) *leadWork {
	st := LeadState{
		Status: l.Status, ConsecutiveSoftBounces: l.ConsecutiveSoftBounces, StopReason: l.StopReason,
		BounceCount: l.BounceCount,
	}
	if l.RetryAfter != nil {
		st.RetryAfter = l.RetryAfter.UTC()
	}
	if l.StoppedAt != nil {
		st.StoppedAt = l.StoppedAt.UTC()
	}
	return &leadWork{lead: l, state: st, oldCount: l.BounceCount, lastEvent: l.LastEventAt, lastSent: l.LastSentAt}
}

func (lw *leadWork) touch(at time.Time) {
	if lw.lastEvent == nil || lw.lastEvent.Before(at) {
		t := at
		lw.lastEvent = &t
	}
}

func (lw *leadWork) touchSent(at time.Time) {
	if lw.lastSent == nil || lw.lastSent.Before(at) {
		t := at
		lw.lastSent = &t
	}
}

// leadsBouncedDelta is the change to the campaign's leads_bounced: +1 when
// the lead got its first bounce, -1 when reprocessing took its last away.
func (lw *leadWork) leadsBouncedDelta() int64 {
	was, is := lw.oldCount > 0, lw.state.BounceCount > 0
	switch {
	case is && !was:
		return 1
	case was && !is:
		return -1
	}
	return 0
}

func optTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func (lw *leadWork) update() store.LeadUpdate {
	return store.LeadUpdate{
		ID: lw.lead.ID, Status: lw.state.Status, ConsecutiveSoftBounces: lw.state.ConsecutiveSoftBounces,
		RetryAfter: optTime(lw.state.RetryAfter), StopReason: lw.state.StopReason,
		StoppedAt: optTime(lw.state.StoppedAt), BounceCount: lw.state.BounceCount,
		LastSentAt: lw.lastSent, LastEventAt: lw.lastEvent,
	}
}

func sortedWork(work map[int64]*leadWork) []*leadWork {
	out := make([]*leadWork, 0, len(work))
	for _, lw := range work {
		out = append(out, lw)
	}
	slices.SortFunc(out, func(a, b *leadWork) int { return cmp.Compare(a.lead.ID, b.lead.ID) })
	return out
}
