package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"testing"
	"time"
)

func TestParseZone(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"", "UTC", true},
		{"UTC", "UTC", true},
		{"Europe/Paris", "Europe/Paris", true},
		{"Asia/Kathmandu", "Asia/Kathmandu", true},
		{"Local", "", false},
		{"Mars/Olympus_Mons", "", false},
		{"../../etc/passwd", "", false},
	} {
		loc, err := ParseZone(c.in)
		if (err == nil) != c.ok || c.ok && loc.String() != c.want {
			t.Errorf("ParseZone(%q) = %v, %v; want %q ok=%v", c.in, loc, err, c.want, c.ok)
		}
	}
}

func TestDays(t *testing.T) {
	paris, _ := time.LoadLocation("Europe/Paris")
	// 23:30 UTC on 30 November is already 1 December in Paris.
	now := time.Date(2026, 11, 30, 23, 30, 0, 0, time.UTC)
	for _, c := range []struct {
		from, to         string
		zone             *time.Location
		wantFrom, wantTo string
		field            string
	}{
		{"", "", time.UTC, "2026-11-01", "2026-11-30", ""},
		{"", "", paris, "2026-11-02", "2026-12-01", ""},
		{"2026-11-05", "2026-11-05", time.UTC, "2026-11-05", "2026-11-05", ""},
		{"2026-01-01", "", time.UTC, "2026-01-01", "2026-11-30", ""},
		{"", "2026-03-31", time.UTC, "2026-03-02", "2026-03-31", ""},
		{"2025-01-01", "2025-12-31", time.UTC, "2025-01-01", "2025-12-31", ""}, // 365 days
		{"2024-01-01", "2024-12-31", time.UTC, "2024-01-01", "2024-12-31", ""}, // 366 days
		{"2024-01-01", "2025-01-01", time.UTC, "", "", "from"},                 // 367 days
		{"2026-11-30", "2026-11-01", time.UTC, "", "", "to"},
		{"2026-11-31", "", time.UTC, "", "", "from"},
		{"", "30/11/2026", time.UTC, "", "", "to"},
		{"1999-12-31", "2000-01-01", time.UTC, "", "", "from"},
	} {
		from, to, field, err := Days(c.from, c.to, c.zone, now)
		if c.field != "" {
			if err == nil || field != c.field {
				t.Errorf("Days(%q, %q) = field %q, %v; want an error on %s", c.from, c.to, field, err, c.field)
			}
			continue
		}
		if err != nil || from.Format(time.DateOnly) != c.wantFrom || to.Format(time.DateOnly) != c.wantTo {
			t.Errorf("Days(%q, %q, %s) = %s..%s, %v; want %s..%s", c.from, c.to, c.zone, from.Format(time.DateOnly),
				to.Format(time.DateOnly), err, c.wantFrom, c.wantTo)
		}
	}
}

// TestPieces checks the decomposition of local days into UTC days and
// 15-minute edges: every local day must be covered exactly once.
func TestPieces(t *testing.T) {
	for _, zn := range []string{"UTC", "Europe/Paris", "Asia/Kathmandu", "America/St_Johns", "Pacific/Kiritimati",
		"Pacific/Pago_Pago", "Australia/Lord_Howe", "Pacific/Chatham", "America/Santiago"} {
		zone, err := time.LoadLocation(zn)
		if err != nil {
			t.Fatal(err)
		}
		from, to, _, err := Days("2026-03-01", "2026-11-30", zone, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		p, err := piecesOf(Query{Zone: zone, From: from, To: to})
		if err != nil {
			t.Fatalf("%s: %v", zn, err)
		}
		// Weigh every quarter hour of the range: UTC days add their 96
		// periods, edges add or subtract theirs; each period must end up
		// with weight 1 in exactly the local day that holds it.
		weight := map[string]map[int64]int{}
		add := func(day string, a, b time.Time, w int) {
			if weight[day] == nil {
				weight[day] = map[int64]int{}
			}
			for x := a; x.Before(b); x = x.Add(15 * time.Minute) {
				weight[day][x.Unix()] += w
			}
		}
		for i, day := range p.days {
			a, _ := time.Parse(time.DateOnly, p.dayFrom[i])
			b, _ := time.Parse(time.DateOnly, p.dayTo[i])
			add(day, a, b, 1)
		}
		for i, day := range p.edgeDay {
			add(day, p.edgeFrom[i], p.edgeTo[i], int(p.edgeSign[i]))
		}
		for day, ws := range weight {
			d, _ := time.Parse(time.DateOnly, day)
			lo := time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, zone)
			hi := time.Date(d.Year(), d.Month(), d.Day()+1, 0, 0, 0, 0, zone)
			for u, w := range ws {
				at := time.Unix(u, 0)
				want := 0
				if !at.Before(lo) && at.Before(hi) {
					want = 1
				}
				if w != want {
					t.Fatalf("%s: day %s: period %s has weight %d, want %d", zn, day, at.UTC(), w, want)
				}
			}
			if n := int(hi.Sub(lo) / (15 * time.Minute)); len(ws) < n {
				t.Fatalf("%s: day %s covers %d periods, want %d", zn, day, len(ws), n)
			}
		}
		if !p.lo.Equal(time.Date(2026, 3, 1, 0, 0, 0, 0, zone)) || !p.hi.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, zone)) {
			t.Fatalf("%s: bounds %s..%s", zn, p.lo, p.hi)
		}
	}
}

func TestWriteCSV(t *testing.T) {
	id := int64(7)
	r := &Report{WorkspaceID: 1, CampaignID: &id, From: "2026-11-01", To: "2026-11-02", TimeZone: "UTC",
		Totals: Totals{Counts: Counts{Sent: 100, Events: 5, Bounced: 4, Hard: 3, Soft: 1}, LeadsBounced: 4},
		Labels: labelRows([]labelCode{{"Invalid recipient", "hard", "5.1.1", 3}, {"Mailbox full", "soft", "4.2.2", 1},
			{"Auto-reply", "", "", 1}}),
		Providers: []ProviderRow{{Provider: "google", Counts: Counts{Sent: 100, Hard: 3}}},
		Mailboxes: []MailboxRow{{MailboxID: &id, Name: "Sales, EU", Counts: Counts{Sent: 100}}, {Counts: Counts{Events: 1}}},
		Daily:     []DayRow{{Date: "2026-11-01"}, {Date: "2026-11-02", Counts: Counts{Sent: 100}}},
	}
	r.Totals.Rates = ratesOf(r.Totals.Counts)
	r.Signals = Signals(r)
	var b bytes.Buffer
	if err := WriteCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	find := func(section, key string) []string {
		for _, row := range rows {
			if len(row) != len(CSVHeader) {
				t.Fatalf("row %v has %d cells, header %d", row, len(row), len(CSVHeader))
			}
			if row[0] == section && row[1] == key {
				return row
			}
		}
		t.Fatalf("no %s row %q in\n%s", section, key, fmt.Sprint(rows))
		return nil
	}
	if row := find("totals", ""); row[3] != "100" || row[12] != "4" || row[17] != "0.03" {
		t.Fatalf("totals row %v", row)
	}
	if row := find("label", "Invalid recipient"); row[2] != "5.1.1 3 Mailbox does not exist" || row[6] != "3" || row[13] != "3" || row[14] != "0.6" {
		t.Fatalf("label row %v", row)
	}
	if row := find("mailbox", "7"); row[2] != "Sales, EU" {
		t.Fatalf("mailbox row %v", row)
	}
	find("mailbox", "")
	find("day", "2026-11-02")
	if row := find("signal", SignalHardBounceRate); row[2][:8] != "warning:" {
		t.Fatalf("signal row %v", row)
	}
}

func TestSignals(t *testing.T) {
	prov := func(sent, soft [5]int64) []ProviderRow {
		var out []ProviderRow
		for i, p := range Providers {
			c := Counts{Sent: sent[i], Soft: soft[i]}
			out = append(out, ProviderRow{Provider: p, Counts: c, Rates: ratesOf(c)})
		}
		return out
	}
	types := func(r *Report) string {
		r.Totals.Rates = ratesOf(r.Totals.Counts)
		var s []string
		for _, x := range Signals(r) {
			s = append(s, x.Type+"/"+x.Severity+"/"+x.Provider)
		}
		return fmt.Sprint(s)
	}
	for _, c := range []struct {
		name string
		r    *Report
		want string
	}{
		{"nothing sent", &Report{Totals: Totals{Counts: Counts{Hard: 5}}}, "[]"},
		{"1.9%", &Report{Totals: Totals{Counts: Counts{Sent: 1000, Hard: 19}}}, "[]"},
		{"4.99%", &Report{Totals: Totals{Counts: Counts{Sent: 10000, Hard: 499}}}, "[hard_bounce_rate/warning/]"},
		{"2%", &Report{Totals: Totals{Counts: Counts{Sent: 1000, Hard: 20}}}, "[hard_bounce_rate/warning/]"},
		{"5%", &Report{Totals: Totals{Counts: Counts{Sent: 1000, Hard: 50}}}, "[hard_bounce_rate/critical/]"},
		{"google 3x", &Report{Providers: prov([5]int64{100, 100, 100, 0, 0}, [5]int64{6, 1, 1, 0, 0})}, "[provider_deferrals/warning/google]"},
		{"google at 3x", &Report{Providers: prov([5]int64{100, 100, 100, 0, 0}, [5]int64{15, 5, 5, 0, 0})}, "[provider_deferrals/warning/google]"},
		{"google under 3x", &Report{Providers: prov([5]int64{100, 100, 100, 0, 0}, [5]int64{14, 5, 5, 0, 0})}, "[]"},
		{"others defer none", &Report{Providers: prov([5]int64{100, 100, 100, 0, 0}, [5]int64{5, 0, 0, 0, 0})}, "[provider_deferrals/warning/google]"},
		{"too few sent", &Report{Providers: prov([5]int64{99, 100, 100, 0, 0}, [5]int64{50, 0, 0, 0, 0})}, "[]"},
		{"others too few", &Report{Providers: prov([5]int64{500, 99, 0, 0, 0}, [5]int64{50, 0, 0, 0, 0})}, "[]"},
		{"too few soft", &Report{Providers: prov([5]int64{100, 100, 0, 0, 0}, [5]int64{4, 0, 0, 0, 0})}, "[]"},
		{"burst", &Report{burst: &burst{End: time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC), Blocks: 12, Bounced: 20}}, "[sender_block_burst/warning/]"},
		{"big burst", &Report{burst: &burst{End: time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC), Blocks: 50, Bounced: 60}}, "[sender_block_burst/critical/]"},
	} {
		if got := types(c.r); got != c.want {
			t.Errorf("%s: signals %s, want %s", c.name, got, c.want)
		}
	}
}

func TestCacheBounded(t *testing.T) {
	c := NewCache(10)
	for i := range 100 {
		c.put(cacheKey{workspace: int64(i)}, &entry{report: &Report{}})
		if c.Len() > 10 {
			t.Fatalf("cache holds %d entries, bound 10", c.Len())
		}
	}
	if c.get(cacheKey{workspace: 99}) == nil {
		t.Fatal("the last entry put is missing")
	}
}
