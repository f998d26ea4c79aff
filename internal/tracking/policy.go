package tracking

import (
	"sort"
	"time"

	"github.com/rebound-hq/rebound/internal/classify"
	"github.com/rebound-hq/rebound/internal/store"
)

// Policy is the lead policy of ../shared/docs/classification.md ("What
// happens to the lead"), with the knobs a workspace may override.
type Policy struct {
	// SoftBounceLimit stops a lead at this many consecutive soft bounces.
	SoftBounceLimit int
	// BackoffBase is the retry delay after the first soft bounce; it doubles
	// with every further consecutive soft bounce up to BackoffCap.
	BackoffBase time.Duration
	BackoffCap  time.Duration
	// StopOnHard stops the lead on any hard bounce.
	StopOnHard bool
	// SuppressOnAddressInvalid suppresses the address on a hard bounce whose
	// reason says the address is dead (address_invalid).
	SuppressOnAddressInvalid bool
	// SuppressOnComplaint suppresses the address on a complaint.
	SuppressOnComplaint bool
	// SuppressOnAnyHard suppresses the address on every hard bounce (off by
	// default: a sender-side block says nothing about the address).
	SuppressOnAnyHard bool
}

// DefaultPolicy returns the defaults of classification.md: stop on hard,
// suppress on address_invalid and complaint, retry after 30 min doubling to
// 48 h, stop after 4 consecutive soft bounces.
func DefaultPolicy() Policy {
	return Policy{
		SoftBounceLimit:          4,
		BackoffBase:              30 * time.Minute,
		BackoffCap:               48 * time.Hour,
		StopOnHard:               true,
		SuppressOnAddressInvalid: true,
		SuppressOnComplaint:      true,
	}
}

// WithSettings returns p with the workspace's non-nil overrides applied.
func (p Policy) WithSettings(s store.PolicySettings) Policy {
	if s.SoftBounceLimit != nil {
		p.SoftBounceLimit = *s.SoftBounceLimit
	}
	if s.BackoffBaseSeconds != nil {
		p.BackoffBase = time.Duration(*s.BackoffBaseSeconds) * time.Second
	}
	if s.BackoffCapSeconds != nil {
		p.BackoffCap = time.Duration(*s.BackoffCapSeconds) * time.Second
	}
	if s.StopOnHard != nil {
		p.StopOnHard = *s.StopOnHard
	}
	if s.SuppressOnAddressInvalid != nil {
		p.SuppressOnAddressInvalid = *s.SuppressOnAddressInvalid
	}
	if s.SuppressOnComplaint != nil {
		p.SuppressOnComplaint = *s.SuppressOnComplaint
	}
	if s.SuppressOnAnyHard != nil {
		p.SuppressOnAnyHard = *s.SuppressOnAnyHard
	}
	return p
}

// Stop reasons the policy writes to leads.stop_reason.
const (
	StopHardBounce      = "hard_bounce"
	StopSoftBounceLimit = "soft_bounce_limit"
	StopComplaint       = "complaint"
)

// isPolicyStop reports whether a stop reason was written by the policy (and
// may therefore be undone by reprocessing), as opposed to the sending side.
func isPolicyStop(reason string) bool {
	return reason == StopHardBounce || reason == StopSoftBounceLimit || reason == StopComplaint
}

// LeadState is the part of a lead the policy reads and writes.
type LeadState struct {
	Status string // store.Lead* constants
	// ConsecutiveSoftBounces is the soft-bounce streak: consecutive sends
	// whose outcome was a soft bounce (see SoftStreak), less what a manual
	// reactivation reset.
	ConsecutiveSoftBounces int
	RetryAfter             time.Time // zero: none
	StopReason             string
	StoppedAt              time.Time // zero: not stopped
	BounceCount            int       // bounce-kind events seen
}

// Signal is one recorded result as the policy sees it.
type Signal struct {
	Kind           string // dsn.Kind values
	Class          string // soft, hard or ""
	AddressInvalid bool
	At             time.Time
	// StreakBefore and StreakAfter are the lead's SoftStreak computed from
	// its history without and with this result (bounces and delivery
	// notices; ignored for other kinds).
	StreakBefore, StreakAfter Streak
}

// Effect is what the policy did for one signal, for the timeline and the
// caller's outcome.
type Effect struct {
	Stopped    bool   // the lead was stopped by this signal
	StopReason string // set when Stopped
	Backoff    bool   // a soft bounce set RetryAfter
	Reset      bool   // the soft-bounce counter was reset
}

// String summarises the effect for the timeline ("stopped: hard_bounce",
// "retry later", "soft-bounce counter reset", or "").
func (e Effect) String() string {
	switch {
	case e.Stopped:
		return "stopped: " + e.StopReason
	case e.Backoff:
		return "retry later"
	case e.Reset:
		return "soft-bounce counter reset"
	}
	return ""
}

// StreakSend is one registered send of a lead, for SoftStreak.
type StreakSend struct {
	ID int64 // sent_messages.id
	At time.Time
}

// StreakEvent is one recorded event of a lead, for SoftStreak.
type StreakEvent struct {
	ID     int64
	Kind   string // dsn.Kind values
	Class  string // soft, hard or ""
	SentID int64  // the send the event was matched to; 0: none
	At     time.Time
}

// SoftStreak returns the number of consecutive sends of a lead whose
// outcome was a soft bounce, the "consecutive soft bounces" of
// classification.md ("What happens to the lead"). sends must be in time
// order (sent_at, id); events may be in any order. The rule:
//
//   - Every bounce (soft or hard) and every delivery notice is an outcome of
//     one send: the send it was matched to (SentID), otherwise the latest
//     send at or before the event's time. An event before every send (the
//     sending side registered none) is a send of its own.
//   - A send's outcome is soft when it has at least one soft bounce and no
//     hard bounce or delivery notice; several soft bounces of one send (MTA
//     retries, two DSNs) count once.
//   - The streak counts back from the latest send that has an outcome: 0
//     when that outcome is not soft (a delivered notice resets it), else the
//     consecutive sends, from it backwards, whose outcome is soft. A send
//     with no outcome at all (no bounce, no notice) followed by a later send
//     that bounced went through: it ends the streak. A send not followed by
//     any outcome yet changes nothing (its outcome is unknown), so
//     registering a send never resets the streak.
//
// Other kinds (complaint, delayed, auto-reply) are not send outcomes here.
func SoftStreak(sends []StreakSend, events []StreakEvent) Streak {
	type slot struct {
		key         int64
		at          time.Time
		soft, other bool
		firstSoft   time.Time
	}
	slots := make([]slot, len(sends))
	pos := make(map[int64]int, len(sends))
	for i, s := range sends {
		slots[i].key, slots[i].at = s.ID, s.At
		pos[s.ID] = i
	}
	var own []slot // events before every send: a send each
	for _, e := range events {
		soft := e.Kind == "bounce" && e.Class == classify.ClassSoft
		other := (e.Kind == "bounce" && e.Class != classify.ClassSoft) || e.Kind == "delivered"
		if !soft && !other {
			continue
		}
		i, ok := pos[e.SentID]
		if e.SentID == 0 || !ok {
			// The latest send at or before e.At.
			i = sort.Search(len(sends), func(j int) bool { return sends[j].At.After(e.At) }) - 1
		}
		if i < 0 {
			own = append(own, slot{key: -e.ID, at: e.At, soft: soft, other: other, firstSoft: e.At})
			continue
		}
		if soft && (!slots[i].soft || e.At.Before(slots[i].firstSoft)) {
			slots[i].firstSoft = e.At
		}
		slots[i].soft = slots[i].soft || soft
		slots[i].other = slots[i].other || other
	}
	if len(own) > 0 {
		sort.SliceStable(own, func(a, b int) bool { return own[a].at.Before(own[b].at) })
		slots = append(own, slots...)
	}
	head := len(slots) - 1
	for head >= 0 && !slots[head].soft && !slots[head].other {
		head--
	}
	var st Streak
	if head < 0 {
		return st
	}
	st.Head = slots[head].key
	for i := head; i >= 0 && slots[i].soft && !slots[i].other; i-- {
		st.N++
	}
	if st.N > 0 {
		st.Since = slots[head].firstSoft
	}
	return st
}

// Streak is what SoftStreak computes.
type Streak struct {
	N int // consecutive soft-bounced sends
	// Since is the time of the first soft bounce of the streak's latest
	// send (zero when N is 0): the retry delay runs from it.
	Since time.Time
	// Head identifies the latest send with an outcome: its sent_messages
	// ID, minus the event ID for an event before every send, 0 for none.
	Head int64
}

// Suppresses reports whether the signal suppresses its address, whatever
// the lead (it applies to unmatched events too: the address is dead for the
// whole workspace). The reason stored is the classify reason, or "complaint".
func (p Policy) Suppresses(s Signal) bool {
	switch s.Kind {
	case "complaint":
		return p.SuppressOnComplaint
	case "bounce":
		if s.Class != classify.ClassHard {
			return false
		}
		return p.SuppressOnAnyHard || (p.SuppressOnAddressInvalid && s.AddressInvalid)
	}
	return false
}

// Backoff returns the retry delay after n consecutive soft bounces (n >= 1):
// BackoffBase doubled n-1 times, capped at BackoffCap.
func (p Policy) Backoff(n int) time.Duration {
	d := p.BackoffBase
	for i := 1; i < n; i++ {
		d *= 2
		if d >= p.BackoffCap || d <= 0 {
			return p.BackoffCap
		}
	}
	return min(d, p.BackoffCap)
}

// Apply returns the lead's state after the signal. A stopped lead stays
// stopped (only its bounce count moves). Rules, classification.md:
//   - hard bounce: stopped when StopOnHard; otherwise it moves the streak
//     like the other outcomes below;
//   - soft bounce or delivery notice: the streak moves from StreakBefore to
//     StreakAfter (SoftStreak). When it grows, the counter grows by as much;
//     when it shrinks (a delivered or successful send), the counter becomes
//     StreakAfter; when it is unchanged (another DSN of a send already
//     counted, an outcome of an older send), nothing changes (Restreak).
//     Starting from the stored counter rather than from the history keeps
//     a manual reactivation's reset;
//   - complaint: stopped;
//   - delayed, auto-reply: nothing.
func (p Policy) Apply(s LeadState, sig Signal) (LeadState, Effect) {
	if sig.Kind == "bounce" {
		s.BounceCount++
	}
	if s.Status == store.LeadStopped {
		return s, Effect{}
	}
	switch sig.Kind {
	case "bounce", "delivered":
		if sig.Kind == "bounce" && sig.Class == classify.ClassHard && p.StopOnHard {
			s.Status, s.StopReason, s.StoppedAt, s.RetryAfter = store.LeadStopped, StopHardBounce, sig.At, time.Time{}
			return s, Effect{Stopped: true, StopReason: StopHardBounce}
		}
		return p.Restreak(s, sig.StreakBefore, sig.StreakAfter, sig.At)
	case "complaint":
		s.Status, s.StopReason, s.StoppedAt, s.RetryAfter = store.LeadStopped, StopComplaint, sig.At, time.Time{}
		return s, Effect{Stopped: true, StopReason: StopComplaint}
	}
	return s, Effect{}
}

// Restreak returns the lead's state after its SoftStreak moved from before
// to after at time at: an outcome recorded, or a send registered late that
// ties earlier outcomes to itself. The counter grows by as much as the
// streak grows; it becomes after.N when the streak shrinks or restarts (a
// new latest send whose streak is no longer: a send with no outcome came
// between); it is left alone when the streak is unchanged (another DSN of a
// send already counted, an outcome of an older send that changes nothing).
// A counter at SoftBounceLimit stops the lead (StoppedAt = at); otherwise a
// counter above 0 sets RetryAfter = after.Since + Backoff(counter) (the
// first soft bounce of the streak's latest send, so a second DSN of that
// send, or a replay in another order, gives the same time), and a counter
// back at 0 clears RetryAfter. A stopped lead is unchanged.
func (p Policy) Restreak(s LeadState, before, after Streak, at time.Time) (LeadState, Effect) {
	var e Effect
	if s.Status == store.LeadStopped {
		return s, e
	}
	old := s.ConsecutiveSoftBounces
	switch {
	case after.N > before.N:
		s.ConsecutiveSoftBounces += after.N - before.N
	case after.N < before.N || after.Head != before.Head:
		s.ConsecutiveSoftBounces = after.N
	default:
		return s, e
	}
	if s.ConsecutiveSoftBounces == 0 {
		e.Reset = old > 0 || !s.RetryAfter.IsZero()
		s.RetryAfter = time.Time{}
		return s, e
	}
	if p.SoftBounceLimit > 0 && s.ConsecutiveSoftBounces >= p.SoftBounceLimit {
		s.Status, s.StopReason, s.StoppedAt, s.RetryAfter = store.LeadStopped, StopSoftBounceLimit, at, time.Time{}
		return s, Effect{Stopped: true, StopReason: StopSoftBounceLimit}
	}
	since := after.Since
	if since.IsZero() {
		since = at
	}
	s.RetryAfter = since.Add(p.Backoff(s.ConsecutiveSoftBounces))
	e.Backoff = true
	return s, e
}

// leadHistory is a lead's sends and the outcomes recorded so far, from
// which SoftStreak is computed before and after each new result.
type leadHistory struct {
	sends  []StreakSend
	events []StreakEvent
}

// newLeadHistory builds a lead's history from stored rows, leaving out the
// events in skip (those of the batch being recorded, added one by one with
// observe) and the sends in skipSent.
func newLeadHistory(events []store.HistoryEvent, sends []store.HistorySend, skip, skipSent map[int64]bool) *leadHistory {
	h := &leadHistory{}
	for _, s := range sends {
		if !skipSent[s.ID] {
			h.sends = append(h.sends, StreakSend{ID: s.ID, At: s.SentAt})
		}
	}
	for _, e := range events {
		if !skip[e.ID] {
			h.events = append(h.events, StreakEvent{ID: e.ID, Kind: e.Kind, Class: e.Class, SentID: e.SentMessageID, At: e.OccurredAt})
		}
	}
	return h
}

// streak is SoftStreak of the history so far.
func (h *leadHistory) streak() Streak { return SoftStreak(h.sends, h.events) }

// observe adds one event to the history and sets sig's StreakBefore and
// StreakAfter.
func (h *leadHistory) observe(sig *Signal, e StreakEvent) {
	sig.StreakBefore = h.streak()
	h.events = append(h.events, e)
	sig.StreakAfter = h.streak()
}
