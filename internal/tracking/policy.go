package tracking

import (
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
	Status                 string // store.Lead* constants
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
// "retry after 2026-...", "soft-bounce counter reset", or "").
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
//   - hard bounce: stopped when StopOnHard;
//   - soft bounce: counter + 1; stopped at SoftBounceLimit, otherwise
//     RetryAfter = At + Backoff(counter);
//   - complaint: stopped;
//   - delivered: counter reset; delayed, auto-reply: nothing.
func (p Policy) Apply(s LeadState, sig Signal) (LeadState, Effect) {
	var e Effect
	if sig.Kind == "bounce" {
		s.BounceCount++
	}
	if s.Status == store.LeadStopped {
		return s, e
	}
	stop := func(reason string) {
		s.Status = store.LeadStopped
		s.StopReason = reason
		s.StoppedAt = sig.At
		s.RetryAfter = time.Time{}
		e.Stopped, e.StopReason = true, reason
	}
	switch sig.Kind {
	case "bounce":
		if sig.Class == classify.ClassHard {
			if p.StopOnHard {
				stop(StopHardBounce)
			}
			return s, e
		}
		s.ConsecutiveSoftBounces++
		if p.SoftBounceLimit > 0 && s.ConsecutiveSoftBounces >= p.SoftBounceLimit {
			stop(StopSoftBounceLimit)
			return s, e
		}
		s.RetryAfter = sig.At.Add(p.Backoff(s.ConsecutiveSoftBounces))
		e.Backoff = true
	case "complaint":
		stop(StopComplaint)
	case "delivered":
		e.Reset = s.ConsecutiveSoftBounces > 0 || !s.RetryAfter.IsZero()
		s.ConsecutiveSoftBounces = 0
		s.RetryAfter = time.Time{}
	}
	return s, e
}

// Sent returns the lead's state after a successful send: the soft-bounce
// counter and RetryAfter are reset (a stopped lead is unchanged).
func (p Policy) Sent(s LeadState) LeadState {
	if s.Status == store.LeadStopped {
		return s
	}
	s.ConsecutiveSoftBounces = 0
	s.RetryAfter = time.Time{}
	return s
}
