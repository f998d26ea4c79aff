// Package report builds the campaign bounce reports of issue 9 (the web
// app's Reports view) from the report counters that internal/tracking keeps
// in the recording transaction, never by scanning bounce_events:
//
//   - totals from report_campaign_counters;
//   - one row per report label (classification.md), its soft/hard split,
//     share and top three codes with their knowledge-base titles
//     (internal/codes) from report_label_counters;
//   - per receiving provider and per sending mailbox from
//     report_dimension_counters;
//   - a daily series in any IANA time zone from report_day_counters (UTC
//     days, rolled up from report_period_counters by migrations/00042)
//     plus the 15-minute periods between a local midnight and the nearest
//     UTC midnight (every UTC offset in use since 2000 is a multiple of 15
//     minutes, so calendar days in any zone are exact);
//   - deliverability signals (Signals, signal.go), the sender-side block
//     burst from report_block_counters (migrations/00040).
//
// A report is computed by one SQL statement (bounces.sql, about 2 ms for
// a campaign with 10,000 events over 90 days) and kept in memory by
// Service's Cache: it is served again, after one small query comparing its
// stamp (the campaign's version, which triggers bump in every transaction
// writing its events or sends; its name; the mailbox names), only while
// nothing it shows has changed. Bounces returns a report; WriteCSV
// flattens one into a CSV table.
package report

import (
	"cmp"
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/codes"
)

// ErrNotFound is returned by Bounces for a campaign that is not in the
// workspace (missing or another workspace's: the two are not told apart).
var ErrNotFound = errors.New("report: campaign not found")

// Labels are the report labels of classification.md in display order; a
// report lists every one of them, zero rows included.
var Labels = []string{
	"Invalid recipient", "Domain not found", "Mailbox disabled", "Mailbox full", "Message too large",
	"Blocked", "Spam or content", "Policy or authentication", "Rate limited", "Temporary failure",
	"Delivery expired", "Other", "Delayed", "Auto-reply", "Complaint",
}

// SenderSideLabels are the labels that say the receiving side refused the
// sender rather than the recipient (classification.md, "What happens to the
// lead"); migrations/00040 counts them per period as blocks.
var SenderSideLabels = []string{"Blocked", "Spam or content", "Policy or authentication"}

// Providers are the receiving providers a report lists, in order; counters
// under any other value are folded into "other".
var Providers = []string{"google", "microsoft", "yahoo", "apple", "other"}

// MaxDays bounds the daily series of one report.
const MaxDays = 366

// MinDate is the first day a report may start: from 2000 on, every UTC
// offset of the tz database is a multiple of 15 minutes, which the daily
// series' exactness relies on.
var MinDate = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Query selects one report.
type Query struct {
	WorkspaceID int64
	// CampaignID is the campaign; 0 means every campaign of the workspace
	// (unmatched events are not part of it).
	CampaignID int64
	// Zone is the IANA time zone of the daily series (not nil).
	Zone *time.Location
	// From and To are the first and last calendar days (inclusive) of the
	// daily series, as dates in Zone: only year, month and day are read.
	From, To time.Time
}

// Counts are the counters of one scope (a campaign, a provider, a mailbox
// or a day). Sent counts registered messages (by sent_at for a day);
// Events counts bounce events of every kind (by occurred_at for a day);
// Bounced = Hard + Soft, events of kind bounce.
type Counts struct {
	Sent        int64 `json:"messages_sent"`
	Events      int64 `json:"events"`
	Bounced     int64 `json:"bounced"`
	Hard        int64 `json:"hard"`
	Soft        int64 `json:"soft"`
	Complaints  int64 `json:"complaints"`
	AutoReplies int64 `json:"auto_replies"`
	Delayed     int64 `json:"delayed"`
	Delivered   int64 `json:"delivered"`
}

// Rates are ratios over messages sent, from 0 (also when nothing was sent)
// upwards; a ratio may exceed 1 when one message bounces more than once.
type Rates struct {
	BounceRate     float64 `json:"bounce_rate"`
	SoftRate       float64 `json:"soft_bounce_rate"`
	HardBounceRate float64 `json:"hard_bounce_rate"`
}

func ratio(n, d int64) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / float64(d)
}

func ratesOf(c Counts) Rates {
	return Rates{BounceRate: ratio(c.Bounced, c.Sent), SoftRate: ratio(c.Soft, c.Sent), HardBounceRate: ratio(c.Hard, c.Sent)}
}

func (c *Counts) add(o Counts) {
	c.Sent += o.Sent
	c.Events += o.Events
	c.Bounced += o.Bounced
	c.Hard += o.Hard
	c.Soft += o.Soft
	c.Complaints += o.Complaints
	c.AutoReplies += o.AutoReplies
	c.Delayed += o.Delayed
	c.Delivered += o.Delivered
}

// Totals are a report's lifetime figures: LeadsBounced counts leads with at
// least one bounce-kind event.
type Totals struct {
	Counts
	LeadsBounced int64 `json:"leads_bounced"`
	Rates
}

// CodeCount is one of a label's top codes: the enhanced status code (RFC
// 3463), else the SMTP reply code (RFC 5321), with the knowledge base's
// title for it ("" when the code is unknown to it).
type CodeCount struct {
	Code  string `json:"code"`
	Count int64  `json:"count"`
	Title string `json:"title"`
}

// LabelRow is one report label: Count events under it (of every kind),
// Soft and Hard its bounce-kind events by class, Share its part of all
// labelled events (0..1), TopCodes its three most frequent codes (fewer
// when it has fewer), most frequent first, ties by code.
type LabelRow struct {
	Label    string      `json:"label"`
	Count    int64       `json:"count"`
	Soft     int64       `json:"soft"`
	Hard     int64       `json:"hard"`
	Share    float64     `json:"share"`
	TopCodes []CodeCount `json:"top_codes"`
}

// ProviderRow is one receiving provider.
type ProviderRow struct {
	Provider string `json:"provider"`
	Counts
	Rates
}

// MailboxRow is one sending mailbox; MailboxID is nil for messages and
// events whose sending mailbox is unknown, Name "" when the mailbox was
// deleted.
type MailboxRow struct {
	MailboxID *int64 `json:"mailbox_id"`
	Name      string `json:"name"`
	Counts
	Rates
}

// DayRow is one calendar day of the daily series in the report's zone.
type DayRow struct {
	Date string `json:"date"` // YYYY-MM-DD
	Counts
	Rates
}

// Report is the bounce report of one campaign or of a workspace.
type Report struct {
	WorkspaceID  int64         `json:"workspace_id"`
	CampaignID   *int64        `json:"campaign_id"`
	CampaignName string        `json:"campaign_name,omitempty"`
	From         string        `json:"from"`
	To           string        `json:"to"`
	TimeZone     string        `json:"tz"`
	Totals       Totals        `json:"totals"`
	Labels       []LabelRow    `json:"labels"`
	Providers    []ProviderRow `json:"providers"`
	Mailboxes    []MailboxRow  `json:"mailboxes"`
	Daily        []DayRow      `json:"daily"`
	// DailyTotals sums the daily series (the figures of [From, To]).
	DailyTotals struct {
		Counts
		Rates
	} `json:"daily_totals"`
	Signals []Signal `json:"signals"`

	burst *burst
}

// burst is the peak sender-side block window of the report's days.
type burst struct {
	End     time.Time
	Blocks  int64
	Bounced int64
	Windows int64
}

//go:embed bounces.sql
var bouncesSQL string

//go:embed stamp.sql
var stampSQL string

//go:embed burst_campaign.sql
var burstCampaignSQL string

//go:embed burst_workspace.sql
var burstWorkspaceSQL string

const (
	scopeOne = "campaign_id = $2::bigint"
	scopeAll = "campaign_id <> 0 AND $2::bigint IS NULL"
)

var (
	sqlOne      = buildSQL(scopeOne, burstCampaignSQL)
	sqlAll      = buildSQL(scopeAll, burstWorkspaceSQL)
	sqlStampOne = strings.ReplaceAll(stampSQL, "{{SCOPE}}", scopeOne)
	sqlStampAll = strings.ReplaceAll(stampSQL, "{{SCOPE}}", scopeAll)
)

func buildSQL(scope, burst string) string {
	text := strings.Replace(stampSQL+"\nUNION ALL\n"+bouncesSQL, "{{BURST}}", burst, 1)
	return strings.NewReplacer(
		"{{SCOPE}}", scope,
		"{{BURST_MIN_BLOCKS}}", strconv.Itoa(BurstMinBlocks),
		"{{BURST_MIN_SHARE_PCT}}", strconv.Itoa(BurstMinSharePct),
		"{{BURST_CAND_MIN}}", strconv.Itoa((BurstMinBlocks+3)/4),
	).Replace(text)
}

// Service reads reports from the database. With a Cache it keeps computed
// reports in memory and serves one again while its stamp (campaign version
// of migrations/00041, campaign name, mailbox names) is unchanged: one
// small query instead of the report's. Reports it returns are shared and
// must not be modified.
type Service struct {
	DB    *gorm.DB
	Cache *Cache
}

var services sync.Map // *gorm.DB -> *Service

// ServiceFor returns the process's Service over db, with a Cache of
// DefaultCacheSize reports (one per db, so that the cache lives as long as
// the handle).
func ServiceFor(db *gorm.DB) *Service {
	if s, ok := services.Load(db); ok {
		return s.(*Service)
	}
	s, _ := services.LoadOrStore(db, &Service{DB: db, Cache: NewCache(DefaultCacheSize)})
	return s.(*Service)
}

// stamp identifies the state a report was computed from.
type stamp struct {
	version   int64
	campaign  string
	mailboxes string
}

// Bounces returns the bounce report selected by q. It fails with
// ErrNotFound when q.CampaignID is not a campaign of q.WorkspaceID.
func (s *Service) Bounces(ctx context.Context, q Query) (*Report, error) {
	e, err := s.bounces(ctx, q)
	if err != nil {
		return nil, err
	}
	return e.report, nil
}

// BouncesJSON is Bounces with the report's JSON encoding (kept with a
// cached report, so a hit costs no encoding either).
func (s *Service) BouncesJSON(ctx context.Context, q Query) ([]byte, *Report, error) {
	e, err := s.bounces(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	b, err := e.encoded()
	return b, e.report, err
}

func (s *Service) bounces(ctx context.Context, q Query) (*entry, error) {
	if q.Zone == nil {
		return nil, errors.New("report: bounces: no time zone")
	}
	sqlDB, err := s.DB.DB()
	if err != nil {
		return nil, fmt.Errorf("report: bounces: %w", err)
	}
	text, stampText, camp := sqlAll, sqlStampAll, any(nil)
	if q.CampaignID != 0 {
		text, stampText, camp = sqlOne, sqlStampOne, q.CampaignID
	}
	from, to := q.From.Format(time.DateOnly), q.To.Format(time.DateOnly)
	key := cacheKey{q.WorkspaceID, q.CampaignID, q.Zone.String(), from, to}
	if s.Cache != nil {
		if cached := s.Cache.get(key); cached != nil {
			var st stamp
			var found int64
			var ignore string
			var n [8]int64
			err := sqlDB.QueryRowContext(ctx, stampText, q.WorkspaceID, camp).Scan(&ignore, &st.campaign, &st.mailboxes, &ignore,
				&st.version, &found, &n[0], &n[1], &n[2], &n[3], &n[4], &n[5], &n[6], &n[7])
			if err != nil {
				return nil, fmt.Errorf("report: bounces: stamp: %w", err)
			}
			if found == 0 {
				return nil, ErrNotFound
			}
			if st == cached.stamp {
				return cached, nil
			}
		}
	}
	p, err := piecesOf(q)
	if err != nil {
		return nil, err
	}
	// The statement is small work over primary-key ranges, but its cost
	// estimate is not (array parameters, lateral ranges): without JIT and
	// with the one generic plan of the prepared statement, it runs in about
	// a millisecond instead of paying JIT compilation and replanning.
	tx, err := sqlDB.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("report: bounces: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only; Commit below on success
	if _, err := tx.ExecContext(ctx, `SELECT set_config('jit', 'off', true), set_config('plan_cache_mode', 'force_generic_plan', true)`); err != nil {
		return nil, fmt.Errorf("report: bounces: settings: %w", err)
	}
	rows, err := tx.QueryContext(ctx, text, q.WorkspaceID, camp, p.lo, p.hi, p.days, p.dayFrom, p.dayTo,
		p.edgeDay, p.edgeSign, p.edgeFrom, p.edgeTo)
	if err != nil {
		return nil, fmt.Errorf("report: bounces: %w", err)
	}
	defer rows.Close()
	r := &Report{WorkspaceID: q.WorkspaceID, From: from, To: to, TimeZone: q.Zone.String()}
	if q.CampaignID != 0 {
		id := q.CampaignID
		r.CampaignID = &id
	}
	var st stamp
	found := false
	var labels []labelCode
	providers := map[string]*Counts{}
	days := map[string]Counts{}
	for rows.Next() {
		var sec, k1, k2, k3 string
		var n [10]int64
		if err := rows.Scan(&sec, &k1, &k2, &k3, &n[0], &n[1], &n[2], &n[3], &n[4], &n[5], &n[6], &n[7], &n[8], &n[9]); err != nil {
			return nil, fmt.Errorf("report: bounces: scan: %w", err)
		}
		c := Counts{n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7], n[8]}
		switch sec {
		case "stamp":
			st = stamp{version: n[0], campaign: k1, mailboxes: k2}
			found = n[1] == 1
			if q.CampaignID != 0 {
				r.CampaignName = k1
			}
		case "totals":
			r.Totals.Counts, r.Totals.LeadsBounced = c, n[9]
		case "label":
			labels = append(labels, labelCode{k1, k2, k3, n[0]})
		case "dim":
			if k1 == "provider" {
				p := k2
				if !slices.Contains(Providers, p) {
					p = "other"
				}
				if providers[p] == nil {
					providers[p] = &Counts{}
				}
				providers[p].add(c)
				continue
			}
			row := MailboxRow{Name: k3, Counts: c, Rates: ratesOf(c)}
			if id, err := strconv.ParseInt(k2, 10, 64); err == nil {
				row.MailboxID = &id
			}
			r.Mailboxes = append(r.Mailboxes, row)
		case "day":
			days[k1] = c
		case "burst":
			end, err := time.Parse(time.RFC3339, k1)
			if err != nil {
				return nil, fmt.Errorf("report: bounces: burst window %q: %w", k1, err)
			}
			r.burst = &burst{End: end, Blocks: n[0], Bounced: n[1], Windows: n[2]}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("report: bounces: %w", err)
	}
	rows.Close()
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("report: bounces: commit: %w", err)
	}
	if !found {
		return nil, ErrNotFound
	}
	r.Totals.Rates = ratesOf(r.Totals.Counts)
	r.Labels = labelRows(labels)
	for _, p := range Providers {
		var c Counts
		if pc := providers[p]; pc != nil {
			c = *pc
		}
		r.Providers = append(r.Providers, ProviderRow{Provider: p, Counts: c, Rates: ratesOf(c)})
	}
	slices.SortFunc(r.Mailboxes, func(a, b MailboxRow) int {
		switch {
		case a.MailboxID == nil && b.MailboxID == nil:
			return 0
		case a.MailboxID == nil:
			return 1
		case b.MailboxID == nil:
			return -1
		}
		return cmp.Compare(*a.MailboxID, *b.MailboxID)
	})
	if r.Mailboxes == nil {
		r.Mailboxes = []MailboxRow{}
	}
	for d := q.From; !d.After(q.To); d = d.AddDate(0, 0, 1) {
		key := d.Format(time.DateOnly)
		c := days[key]
		r.Daily = append(r.Daily, DayRow{Date: key, Counts: c, Rates: ratesOf(c)})
		r.DailyTotals.Counts.add(c)
	}
	r.DailyTotals.Rates = ratesOf(r.DailyTotals.Counts)
	r.Signals = Signals(r)
	e := &entry{stamp: st, report: r}
	if s.Cache != nil {
		s.Cache.put(key, e)
	}
	return e, nil
}

// pieces are the UTC bounds of a report's days and the pieces its daily
// series sums (bounces.sql): each local day [lo, hi) is the UTC days
// [alo, ahi) between the UTC midnights nearest to lo and hi, plus or minus
// the 15-minute periods of [lo, alo) and [ahi, hi).
type pieces struct {
	lo, hi               time.Time
	days, dayFrom, dayTo []string
	edgeDay              []string
	edgeSign             []int32
	edgeFrom, edgeTo     []time.Time
}

func piecesOf(q Query) (*pieces, error) {
	p := &pieces{}
	nearestMidnight := func(t time.Time) time.Time { return t.UTC().Add(12 * time.Hour).Truncate(24 * time.Hour) }
	edge := func(day string, from, to time.Time) {
		if from.Equal(to) {
			return
		}
		sign := int32(1)
		if to.Before(from) {
			sign, from, to = -1, to, from
		}
		p.edgeDay, p.edgeSign = append(p.edgeDay, day), append(p.edgeSign, sign)
		p.edgeFrom, p.edgeTo = append(p.edgeFrom, from), append(p.edgeTo, to)
	}
	for d := q.From; !d.After(q.To); d = d.AddDate(0, 0, 1) {
		lo := time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, q.Zone).UTC()
		hi := time.Date(d.Year(), d.Month(), d.Day()+1, 0, 0, 0, 0, q.Zone).UTC()
		if lo.Unix()%900 != 0 || hi.Unix()%900 != 0 {
			return nil, fmt.Errorf("report: bounces: %s in %s does not start on a UTC quarter hour", d.Format(time.DateOnly), q.Zone)
		}
		if p.days == nil {
			p.lo = lo
		}
		p.hi = hi
		day := d.Format(time.DateOnly)
		alo, ahi := nearestMidnight(lo), nearestMidnight(hi)
		p.days = append(p.days, day)
		p.dayFrom, p.dayTo = append(p.dayFrom, alo.Format(time.DateOnly)), append(p.dayTo, ahi.Format(time.DateOnly))
		edge(day, lo, alo)
		edge(day, ahi, hi)
	}
	return p, nil
}

// labelCode is one (label, class, code) counter sum.
type labelCode struct {
	label, class, code string
	events             int64
}

// labelRows folds (label, class, code) sums into one row per label: every
// label of Labels in order, then any other non-empty label by name.
func labelRows(in []labelCode) []LabelRow {
	type acc struct {
		row   LabelRow
		codes map[string]int64
	}
	by := map[string]*acc{}
	var total int64
	for _, l := range in {
		if l.label == "" {
			continue
		}
		a := by[l.label]
		if a == nil {
			a = &acc{row: LabelRow{Label: l.label}, codes: map[string]int64{}}
			by[l.label] = a
		}
		a.row.Count += l.events
		total += l.events
		switch l.class {
		case "soft":
			a.row.Soft += l.events
		case "hard":
			a.row.Hard += l.events
		}
		if l.code != "" {
			a.codes[l.code] += l.events
		}
	}
	order := slices.Clone(Labels)
	var extra []string
	for name := range by {
		if !slices.Contains(Labels, name) {
			extra = append(extra, name)
		}
	}
	slices.Sort(extra)
	order = append(order, extra...)
	out := make([]LabelRow, 0, len(order))
	for _, name := range order {
		a := by[name]
		if a == nil {
			out = append(out, LabelRow{Label: name, TopCodes: []CodeCount{}})
			continue
		}
		a.row.Share = ratio(a.row.Count, total)
		top := make([]CodeCount, 0, len(a.codes))
		for code, n := range a.codes {
			if n != 0 {
				top = append(top, CodeCount{Code: code, Count: n})
			}
		}
		slices.SortFunc(top, func(x, y CodeCount) int {
			if x.Count != y.Count {
				if x.Count > y.Count {
					return -1
				}
				return 1
			}
			return strings.Compare(x.Code, y.Code)
		})
		if len(top) > 3 {
			top = top[:3]
		}
		for i := range top {
			top[i].Title = codeTitle(top[i].Code)
		}
		a.row.TopCodes = top
		out = append(out, a.row)
	}
	return out
}

var titles sync.Map // code -> knowledge-base title

// codeTitle returns the knowledge base's title of a bare code ("" when the
// code is unknown), cached per code.
func codeTitle(code string) string {
	if t, ok := titles.Load(code); ok {
		return t.(string)
	}
	title := ""
	if m, ok := codes.Lookup(code, ""); ok && m.Entry != nil {
		title = m.Entry.Title
	}
	titles.Store(code, title)
	return title
}
