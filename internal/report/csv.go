package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// CSVHeader is the header row of WriteCSV. Every row names its section
// (totals, daily_totals, label, provider, mailbox, day, signal) and key
// (label name, provider, mailbox ID ("" unknown), date YYYY-MM-DD or
// signal type); detail holds a label's top codes ("code count title" joined
// by " | "), a mailbox's name, or a signal's severity and message. Counts
// are integers, rates and shares decimals (ratios, not percentages); cells
// that do not apply to a section are empty.
var CSVHeader = []string{
	"section", "key", "detail", "messages_sent", "events", "bounced", "hard", "soft", "complaints",
	"auto_replies", "delayed", "delivered", "leads_bounced", "count", "share", "bounce_rate",
	"soft_bounce_rate", "hard_bounce_rate",
}

// WriteCSV writes r as one CSV table (RFC 4180) with CSVHeader.
func WriteCSV(w io.Writer, r *Report) error {
	cw := csv.NewWriter(w)
	i := func(n int64) string { return strconv.FormatInt(n, 10) }
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	counts := func(c Counts) []string {
		return []string{i(c.Sent), i(c.Events), i(c.Bounced), i(c.Hard), i(c.Soft), i(c.Complaints),
			i(c.AutoReplies), i(c.Delayed), i(c.Delivered)}
	}
	rates := func(x Rates) []string { return []string{f(x.BounceRate), f(x.SoftRate), f(x.HardBounceRate)} }
	row := func(section, key, detail string, c []string, leads, count, share string, rt []string) []string {
		if c == nil {
			c = make([]string, 9)
		}
		if rt == nil {
			rt = make([]string, 3)
		}
		out := append([]string{section, key, detail}, c...)
		out = append(out, leads, count, share)
		return append(out, rt...)
	}
	rows := [][]string{CSVHeader,
		row("totals", "", "", counts(r.Totals.Counts), i(r.Totals.LeadsBounced), "", "", rates(r.Totals.Rates)),
		row("daily_totals", r.From+"/"+r.To, "", counts(r.DailyTotals.Counts), "", "", "", rates(r.DailyTotals.Rates)),
	}
	for _, l := range r.Labels {
		var top []string
		for _, c := range l.TopCodes {
			top = append(top, strings.TrimSpace(c.Code+" "+i(c.Count)+" "+c.Title))
		}
		c := make([]string, 9)
		c[3], c[4] = i(l.Hard), i(l.Soft)
		rows = append(rows, row("label", l.Label, strings.Join(top, " | "), c, "", i(l.Count), f(l.Share), nil))
	}
	for _, p := range r.Providers {
		rows = append(rows, row("provider", p.Provider, "", counts(p.Counts), "", "", "", rates(p.Rates)))
	}
	for _, m := range r.Mailboxes {
		key := ""
		if m.MailboxID != nil {
			key = i(*m.MailboxID)
		}
		rows = append(rows, row("mailbox", key, m.Name, counts(m.Counts), "", "", "", rates(m.Rates)))
	}
	for _, d := range r.Daily {
		rows = append(rows, row("day", d.Date, "", counts(d.Counts), "", "", "", rates(d.Rates)))
	}
	for _, s := range r.Signals {
		detail := s.Severity + ": " + s.Message
		if s.WindowStart != nil {
			detail += " [" + s.WindowStart.Format(time.RFC3339) + ", " + s.WindowEnd.Format(time.RFC3339) + ")"
		}
		rows = append(rows, row("signal", s.Type, detail, nil, "", "", "", nil))
	}
	if err := cw.WriteAll(rows); err != nil {
		return fmt.Errorf("report: csv: %w", err)
	}
	return nil
}
