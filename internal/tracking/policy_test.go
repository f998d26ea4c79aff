package tracking

import (
	"strings"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/store"
)

func ptr[T any](v T) *T { return &v }

func TestPolicyApply(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	active := LeadState{Status: store.LeadActive}
	def := DefaultPolicy()
	cases := []struct {
		name   string
		policy Policy
		start  LeadState
		sig    Signal
		want   LeadState
		eff    Effect
		supp   bool
	}{
		{"hard invalid stops and suppresses", def, active,
			Signal{Kind: "bounce", Class: "hard", AddressInvalid: true, At: t0},
			LeadState{Status: store.LeadStopped, StopReason: StopHardBounce, StoppedAt: t0, BounceCount: 1},
			Effect{Stopped: true, StopReason: StopHardBounce}, true},
		{"hard block stops, keeps address", def, active,
			Signal{Kind: "bounce", Class: "hard", At: t0},
			LeadState{Status: store.LeadStopped, StopReason: StopHardBounce, StoppedAt: t0, BounceCount: 1},
			Effect{Stopped: true, StopReason: StopHardBounce}, false},
		{"first soft bounce: 30 min", def, active,
			Signal{Kind: "bounce", Class: "soft", At: t0, StreakAfter: Streak{N: 1, Head: 1, Since: t0}},
			LeadState{Status: store.LeadActive, ConsecutiveSoftBounces: 1, RetryAfter: t0.Add(30 * time.Minute), BounceCount: 1},
			Effect{Backoff: true}, false},
		{"third soft bounce: 2 h", def, LeadState{Status: store.LeadActive, ConsecutiveSoftBounces: 2, BounceCount: 2},
			Signal{Kind: "bounce", Class: "soft", At: t0, StreakBefore: Streak{N: 2, Head: 2}, StreakAfter: Streak{N: 3, Head: 3, Since: t0}},
			LeadState{Status: store.LeadActive, ConsecutiveSoftBounces: 3, RetryAfter: t0.Add(2 * time.Hour), BounceCount: 3},
			Effect{Backoff: true}, false},
		{"fourth soft bounce stops", def, LeadState{Status: store.LeadActive, ConsecutiveSoftBounces: 3, RetryAfter: t0, BounceCount: 3},
			Signal{Kind: "bounce", Class: "soft", At: t0, StreakBefore: Streak{N: 3, Head: 3}, StreakAfter: Streak{N: 4, Head: 4, Since: t0}},
			LeadState{Status: store.LeadStopped, ConsecutiveSoftBounces: 4, StopReason: StopSoftBounceLimit, StoppedAt: t0, BounceCount: 4},
			Effect{Stopped: true, StopReason: StopSoftBounceLimit}, false},
		{"soft invalid is not suppressed", def, active,
			Signal{Kind: "bounce", Class: "soft", AddressInvalid: true, At: t0, StreakAfter: Streak{N: 1, Head: 1, Since: t0}},
			LeadState{Status: store.LeadActive, ConsecutiveSoftBounces: 1, RetryAfter: t0.Add(30 * time.Minute), BounceCount: 1},
			Effect{Backoff: true}, false},
		{"complaint stops and suppresses", def, active,
			Signal{Kind: "complaint", At: t0},
			LeadState{Status: store.LeadStopped, StopReason: StopComplaint, StoppedAt: t0},
			Effect{Stopped: true, StopReason: StopComplaint}, true},
		{"delivered resets", def, LeadState{Status: store.LeadActive, ConsecutiveSoftBounces: 2, RetryAfter: t0, BounceCount: 2},
			Signal{Kind: "delivered", At: t0, StreakBefore: Streak{N: 2, Head: 2}, StreakAfter: Streak{Head: 3}},
			LeadState{Status: store.LeadActive, BounceCount: 2},
			Effect{Reset: true}, false},
		{"second DSN of a counted send changes nothing", def,
			LeadState{Status: store.LeadActive, ConsecutiveSoftBounces: 2, RetryAfter: t0, BounceCount: 2},
			Signal{Kind: "bounce", Class: "soft", At: t0.Add(time.Hour), StreakBefore: Streak{N: 2, Head: 2, Since: t0}, StreakAfter: Streak{N: 2, Head: 2, Since: t0}},
			LeadState{Status: store.LeadActive, ConsecutiveSoftBounces: 2, RetryAfter: t0, BounceCount: 3},
			Effect{}, false},
		{"soft bounce after a successful send restarts at 1", def,
			LeadState{Status: store.LeadActive, ConsecutiveSoftBounces: 3, RetryAfter: t0, BounceCount: 3},
			Signal{Kind: "bounce", Class: "soft", At: t0, StreakBefore: Streak{N: 3, Head: 3}, StreakAfter: Streak{N: 1, Head: 5, Since: t0}},
			LeadState{Status: store.LeadActive, ConsecutiveSoftBounces: 1, RetryAfter: t0.Add(30 * time.Minute), BounceCount: 4},
			Effect{Backoff: true}, false},
		{"new latest send after an unbounced one restarts at 1", def,
			LeadState{Status: store.LeadActive, ConsecutiveSoftBounces: 1, RetryAfter: t0, BounceCount: 1},
			Signal{Kind: "bounce", Class: "soft", At: t0, StreakBefore: Streak{N: 1, Head: 1, Since: t0.Add(-time.Hour)}, StreakAfter: Streak{N: 1, Head: 3, Since: t0}},
			LeadState{Status: store.LeadActive, ConsecutiveSoftBounces: 1, RetryAfter: t0.Add(30 * time.Minute), BounceCount: 2},
			Effect{Backoff: true}, false},
		{"reactivated lead counts from its reset", def,
			LeadState{Status: store.LeadActive, BounceCount: 4},
			Signal{Kind: "bounce", Class: "soft", At: t0, StreakBefore: Streak{N: 4, Head: 4}, StreakAfter: Streak{N: 5, Head: 5, Since: t0}},
			LeadState{Status: store.LeadActive, ConsecutiveSoftBounces: 1, RetryAfter: t0.Add(30 * time.Minute), BounceCount: 5},
			Effect{Backoff: true}, false},
		{"delayed logs only", def, LeadState{Status: store.LeadActive, ConsecutiveSoftBounces: 1, RetryAfter: t0},
			Signal{Kind: "delayed", At: t0},
			LeadState{Status: store.LeadActive, ConsecutiveSoftBounces: 1, RetryAfter: t0},
			Effect{}, false},
		{"auto-reply logs only", def, active, Signal{Kind: "auto_reply", At: t0}, active, Effect{}, false},
		{"stopped lead stays stopped", def,
			LeadState{Status: store.LeadStopped, StopReason: "unsubscribed", StoppedAt: t0},
			Signal{Kind: "bounce", Class: "soft", At: t0.Add(time.Hour)},
			LeadState{Status: store.LeadStopped, StopReason: "unsubscribed", StoppedAt: t0, BounceCount: 1},
			Effect{}, false},
		{"stopped lead still suppressed on invalid", def,
			LeadState{Status: store.LeadStopped, StopReason: StopHardBounce, StoppedAt: t0, BounceCount: 1},
			Signal{Kind: "bounce", Class: "hard", AddressInvalid: true, At: t0.Add(time.Hour)},
			LeadState{Status: store.LeadStopped, StopReason: StopHardBounce, StoppedAt: t0, BounceCount: 2},
			Effect{}, true},
		{"override: no stop on hard", def.WithSettings(store.PolicySettings{StopOnHard: ptr(false)}), active,
			Signal{Kind: "bounce", Class: "hard", At: t0},
			LeadState{Status: store.LeadActive, BounceCount: 1}, Effect{}, false},
		{"override: soft limit 2 and 10 min base", def.WithSettings(store.PolicySettings{SoftBounceLimit: ptr(2), BackoffBaseSeconds: ptr(600)}),
			LeadState{Status: store.LeadActive, ConsecutiveSoftBounces: 1, BounceCount: 1},
			Signal{Kind: "bounce", Class: "soft", At: t0, StreakBefore: Streak{N: 1, Head: 1}, StreakAfter: Streak{N: 2, Head: 2, Since: t0}},
			LeadState{Status: store.LeadStopped, ConsecutiveSoftBounces: 2, StopReason: StopSoftBounceLimit, StoppedAt: t0, BounceCount: 2},
			Effect{Stopped: true, StopReason: StopSoftBounceLimit}, false},
		{"override: complaints not suppressed", def.WithSettings(store.PolicySettings{SuppressOnComplaint: ptr(false)}), active,
			Signal{Kind: "complaint", At: t0},
			LeadState{Status: store.LeadStopped, StopReason: StopComplaint, StoppedAt: t0},
			Effect{Stopped: true, StopReason: StopComplaint}, false},
		{"override: suppress any hard", def.WithSettings(store.PolicySettings{SuppressOnAnyHard: ptr(true)}), active,
			Signal{Kind: "bounce", Class: "hard", At: t0},
			LeadState{Status: store.LeadStopped, StopReason: StopHardBounce, StoppedAt: t0, BounceCount: 1},
			Effect{Stopped: true, StopReason: StopHardBounce}, true},
		{"override: invalid not suppressed", def.WithSettings(store.PolicySettings{SuppressOnAddressInvalid: ptr(false)}), active,
			Signal{Kind: "bounce", Class: "hard", AddressInvalid: true, At: t0},
			LeadState{Status: store.LeadStopped, StopReason: StopHardBounce, StoppedAt: t0, BounceCount: 1},
			Effect{Stopped: true, StopReason: StopHardBounce}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, eff := c.policy.Apply(c.start, c.sig)
			if got != c.want {
				t.Errorf("state = %+v, want %+v", got, c.want)
			}
			if eff != c.eff {
				t.Errorf("effect = %+v, want %+v", eff, c.eff)
			}
			if s := c.policy.Suppresses(c.sig); s != c.supp {
				t.Errorf("Suppresses = %v, want %v", s, c.supp)
			}
		})
	}
}

func TestPolicyBackoff(t *testing.T) {
	p := DefaultPolicy()
	want := []time.Duration{30 * time.Minute, time.Hour, 2 * time.Hour, 4 * time.Hour, 8 * time.Hour,
		16 * time.Hour, 32 * time.Hour, 48 * time.Hour, 48 * time.Hour}
	for i, w := range want {
		if got := p.Backoff(i + 1); got != w {
			t.Errorf("Backoff(%d) = %v, want %v", i+1, got, w)
		}
	}
	if got := p.Backoff(200); got != 48*time.Hour {
		t.Errorf("Backoff(200) = %v (overflow?)", got)
	}
	p = p.WithSettings(store.PolicySettings{BackoffBaseSeconds: ptr(3600), BackoffCapSeconds: ptr(3 * 3600)})
	if got := p.Backoff(3); got != 3*time.Hour {
		t.Errorf("custom Backoff(3) = %v, want 3h", got)
	}
}

func TestSoftStreak(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	h := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Hour) }
	sends := []StreakSend{{ID: 1, At: h(0)}, {ID: 2, At: h(10)}, {ID: 3, At: h(20)}, {ID: 4, At: h(30)}}
	soft := func(id, sent int64, at time.Time) StreakEvent {
		return StreakEvent{ID: id, Kind: "bounce", Class: "soft", SentID: sent, At: at}
	}
	cases := []struct {
		name   string
		sends  []StreakSend
		events []StreakEvent
		want   int
	}{
		{"sends alone reset nothing and count nothing", sends, nil, 0},
		{"each send soft-bounced", sends, []StreakEvent{soft(1, 1, h(1)), soft(2, 2, h(11)), soft(3, 3, h(21)), soft(4, 4, h(31))}, 4},
		{"bounces tied by time to the latest send before them", sends, []StreakEvent{soft(1, 0, h(1)), soft(2, 0, h(11)), soft(3, 0, h(21))}, 3},
		{"a later unbounced send is not known yet", sends, []StreakEvent{soft(1, 0, h(1)), soft(2, 0, h(11))}, 2},
		{"a send with no bounce before a bounced one ends the streak", sends,
			[]StreakEvent{soft(1, 1, h(1)), soft(3, 3, h(21))}, 1},
		{"two DSNs of one send count once", sends,
			[]StreakEvent{soft(1, 1, h(1)), soft(2, 2, h(11)), soft(3, 2, h(12)), soft(4, 0, h(13))}, 2},
		{"delivered send resets", sends,
			[]StreakEvent{soft(1, 1, h(1)), soft(2, 2, h(11)), {ID: 3, Kind: "delivered", SentID: 3, At: h(21)}}, 0},
		{"delivered for an older send ends the streak there", sends,
			[]StreakEvent{soft(1, 1, h(1)), {ID: 2, Kind: "delivered", SentID: 2, At: h(11)}, soft(3, 3, h(21)), soft(4, 4, h(31))}, 2},
		{"soft and delivered for one send is not soft", sends,
			[]StreakEvent{soft(1, 1, h(1)), soft(2, 2, h(11)), {ID: 3, Kind: "delivered", SentID: 2, At: h(12)}}, 0},
		{"hard bounce ends the streak", sends,
			[]StreakEvent{soft(1, 1, h(1)), {ID: 2, Kind: "bounce", Class: "hard", SentID: 2, At: h(11)}, soft(3, 3, h(21))}, 1},
		{"delayed and auto-replies are not outcomes", sends,
			[]StreakEvent{soft(1, 1, h(1)), {ID: 2, Kind: "delayed", SentID: 2, At: h(11)}, {ID: 3, Kind: "auto_reply", At: h(12)}, soft(4, 3, h(21))}, 1},
		{"no registered send: every bounce is a send of its own", nil,
			[]StreakEvent{soft(1, 0, h(1)), soft(2, 0, h(2)), soft(3, 0, h(3))}, 3},
		{"events in any order", sends, []StreakEvent{soft(4, 4, h(31)), soft(2, 0, h(11)), soft(3, 3, h(21))}, 3},
	}
	for _, c := range cases {
		if got := SoftStreak(c.sends, c.events).N; got != c.want {
			t.Errorf("%s: SoftStreak = %d, want %d", c.name, got, c.want)
		}
	}
	// Two DSNs of one send: the retry runs from the first; the head is
	// the send.
	got := SoftStreak(sends, []StreakEvent{soft(1, 1, h(1)), soft(3, 2, h(12)), soft(2, 2, h(11))})
	if got != (Streak{N: 2, Head: 2, Since: h(11)}) {
		t.Errorf("SoftStreak = %+v, want 2 since %v, head 2", got, h(11))
	}
	// An event before every send is a send of its own, keyed by its ID.
	if got := SoftStreak(nil, []StreakEvent{soft(7, 0, h(1))}); got != (Streak{N: 1, Head: -7, Since: h(1)}) {
		t.Errorf("SoftStreak without sends = %+v", got)
	}
}

func TestDedupeHash(t *testing.T) {
	base := "From: a@example.org\nTo: b@example.org\nSubject: x\nMessage-ID: <1@x>\n\nbody line\n"
	same := []string{
		strings.ReplaceAll(base, "\n", "\r\n"),
		"Received: from a by b; Mon, 30 Nov 2026 02:00:00 +0000\nDelivered-To: b@example.org\n" + base,
		"X-Gm-Labels: Inbox\nReturn-Path: <>\n" + base + "\n\n",
		"Received: from a\n\tby b (continued)\n" + base,
	}
	h0 := DedupeHash([]byte(base))
	for i, s := range same {
		if DedupeHash([]byte(s)) != h0 {
			t.Errorf("variant %d hashes differently", i)
		}
	}
	differ := []string{
		base + "more\n",
		"From: a@example.org\nTo: b@example.org\nSubject: y\nMessage-ID: <1@x>\n\nbody line\n",
		"From: a@example.org\nTo: b@example.org\nSubject: x\nMessage-ID: <2@x>\n\nbody line\n",
	}
	for i, s := range differ {
		if DedupeHash([]byte(s)) == h0 {
			t.Errorf("different message %d hashes alike", i)
		}
	}
}

func TestVERPTokens(t *testing.T) {
	raw := "Return-Path: <>\nTo: Sales <bounces+abc123@mail.example.org>, other@example.org\n" +
		"Delivered-To: BOUNCES+Tok-2@mail.example.org\nX-Original-To: bounces+abc123@mail.example.org\n" +
		"Subject: x bounces+nothere@example.org\n\nTo: bounces+body@example.org\n"
	got := verpTokens([]byte(raw), "bounces")
	want := []string{"abc123", "Tok-2"}
	if len(got) != len(want) {
		t.Fatalf("verpTokens = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("verpTokens = %q, want %q", got, want)
		}
	}
	if got := verpTokens([]byte("To: mybounces+x@example.org\n\n"), "bounces"); len(got) != 0 {
		t.Fatalf("prefix inside a local part matched: %q", got)
	}
	// Letters whose lower case is longer in UTF-8 (U+0130 becomes three
	// bytes) must not shift the token out of place, nor out of range.
	odd := "To: " + strings.Repeat("\u0130", 20) + " <bounces+tok9@example.org>\n\n"
	if got := verpTokens([]byte(odd), "bounces"); len(got) != 1 || got[0] != "tok9" {
		t.Fatalf("verpTokens after non-ASCII text = %q, want [tok9]", got)
	}
}

func TestCompressRoundTrip(t *testing.T) {
	raw := []byte(strings.Repeat("line of a bounce message\n", 50) + "Ünïcode\r\n")
	gz, err := compress(raw)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decompress(gz)
	if err != nil || string(back) != string(raw) {
		t.Fatalf("round trip: %q, %v", back, err)
	}
}
