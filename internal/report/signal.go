package report

import (
	"fmt"
	"time"
)

// Signal thresholds. They are documented in openapi.yaml (ReportSignal) and
// applied by Signals.
const (
	// HardRateWarning and HardRateCritical are the hard-bounce rates (hard
	// bounces over messages sent, lifetime totals) at or above which the
	// hard_bounce_rate signal is a warning or critical.
	HardRateWarningPct  = 2
	HardRateCriticalPct = 5
	HardRateWarning     = float64(HardRateWarningPct) / 100
	HardRateCritical    = float64(HardRateCriticalPct) / 100

	// DeferralFactor: a provider whose soft-bounce rate is at least this
	// many times the soft-bounce rate of every other provider together
	// raises provider_deferrals (a reputation hint: that provider defers
	// the sender). To keep small numbers from raising it, the provider
	// needs DeferralMinSent messages sent and DeferralMinSoft soft bounces,
	// and the other providers together DeferralMinSent messages sent.
	DeferralFactor  = 3
	DeferralMinSent = 100
	DeferralMinSoft = 5

	// A sender-side block burst is a 60-minute window (four consecutive
	// 15-minute periods, aligned on UTC quarter hours, within the report's
	// days) holding at least BurstMinBlocks bounce events under a
	// sender-side label (SenderSideLabels, soft or hard) that are at least
	// BurstMinSharePct percent of that window's bounce events. The signal
	// names the window with the most blocks (the earliest among equals);
	// it is critical from BurstCriticalBlocks blocks.
	BurstMinBlocks      = 10
	BurstMinSharePct    = 50
	BurstCriticalBlocks = 50
)

// Signal types.
const (
	SignalHardBounceRate   = "hard_bounce_rate"
	SignalProviderDeferral = "provider_deferrals"
	SignalBlockBurst       = "sender_block_burst"
)

// Signal is one deliverability warning of a report. Value and Threshold
// are what was compared (a rate, or a count of blocks); Provider names the
// provider of provider_deferrals; WindowStart and WindowEnd bound the peak
// window of sender_block_burst.
type Signal struct {
	Type        string     `json:"type"`
	Severity    string     `json:"severity"` // warning or critical
	Message     string     `json:"message"`
	Value       float64    `json:"value"`
	Threshold   float64    `json:"threshold"`
	Provider    string     `json:"provider,omitempty"`
	WindowStart *time.Time `json:"window_start,omitempty"`
	WindowEnd   *time.Time `json:"window_end,omitempty"`
}

// Signals returns the deliverability signals of r, in the order hard-bounce
// rate, provider deferrals (by provider order), block burst; empty when
// none applies.
func Signals(r *Report) []Signal {
	out := []Signal{}
	// Thresholds are compared in integers (hard*100 >= sent*2), so a rate
	// exactly at a threshold meets it whatever float rounding would say.
	if t := r.Totals; t.Sent > 0 {
		rate := t.HardBounceRate
		switch {
		case t.Hard*100 >= t.Sent*HardRateCriticalPct:
			out = append(out, Signal{Type: SignalHardBounceRate, Severity: "critical", Value: rate, Threshold: HardRateCritical,
				Message: fmt.Sprintf("hard-bounce rate %.2f%% is at or above %d%%: check the list's quality and stop sending to it", rate*100, HardRateCriticalPct)})
		case t.Hard*100 >= t.Sent*HardRateWarningPct:
			out = append(out, Signal{Type: SignalHardBounceRate, Severity: "warning", Value: rate, Threshold: HardRateWarning,
				Message: fmt.Sprintf("hard-bounce rate %.2f%% is at or above %d%%", rate*100, HardRateWarningPct)})
		}
	}
	var all Counts
	for _, p := range r.Providers {
		all.add(p.Counts)
	}
	for _, p := range r.Providers {
		otherSent, otherSoft := all.Sent-p.Sent, all.Soft-p.Soft
		if p.Sent < DeferralMinSent || p.Soft < DeferralMinSoft || otherSent < DeferralMinSent {
			continue
		}
		rate, others := ratio(p.Soft, p.Sent), ratio(otherSoft, otherSent)
		if p.Soft*otherSent >= DeferralFactor*otherSoft*p.Sent { // rate >= factor * others, in integers
			out = append(out, Signal{Type: SignalProviderDeferral, Severity: "warning", Provider: p.Provider,
				Value: rate, Threshold: DeferralFactor * others,
				Message: fmt.Sprintf("%s defers at a soft-bounce rate of %.2f%%, %d times or more the other providers' %.2f%%: a reputation problem with %s is likely",
					p.Provider, rate*100, DeferralFactor, others*100, p.Provider)})
		}
	}
	if b := r.burst; b != nil {
		start := b.End.Add(-time.Hour)
		end := b.End
		sev := "warning"
		if b.Blocks >= BurstCriticalBlocks {
			sev = "critical"
		}
		out = append(out, Signal{Type: SignalBlockBurst, Severity: sev, Value: float64(b.Blocks), Threshold: BurstMinBlocks,
			WindowStart: &start, WindowEnd: &end,
			Message: fmt.Sprintf("%d sender-side blocks (of %d bounces) between %s and %s UTC: a blocklisting or a provider refusing the sender",
				b.Blocks, b.Bounced, start.Format("2006-01-02 15:04"), end.Format("15:04"))})
	}
	return out
}
