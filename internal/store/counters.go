package store

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
)

// DimensionKey names a DimensionCounters row within a workspace.
type DimensionKey struct {
	CampaignID int64
	Dimension  string
	Value      string
}

// LabelKey names a LabelCounters row within a workspace.
type LabelKey struct {
	CampaignID int64
	Label      string
	Class      string
	Code       string
}

// PeriodKey names a PeriodCounters row within a workspace.
type PeriodKey struct {
	CampaignID  int64
	PeriodStart time.Time // UTC, aligned on Period
}

// CounterDeltas accumulates changes to one workspace's report counters
// during a transaction; ApplyCounterDeltas writes them in one statement
// (an upsert per table), rows in key order (so concurrent writers lock counter rows in the
// same order). Deltas may be negative.
type CounterDeltas struct {
	Campaigns    map[int64]*Metrics
	LeadsBounced map[int64]int64
	Dimensions   map[DimensionKey]*Metrics
	Labels       map[LabelKey]int64
	Periods      map[PeriodKey]*Metrics
}

// NewCounterDeltas returns empty deltas.
func NewCounterDeltas() *CounterDeltas {
	return &CounterDeltas{
		Campaigns:    map[int64]*Metrics{},
		LeadsBounced: map[int64]int64{},
		Dimensions:   map[DimensionKey]*Metrics{},
		Labels:       map[LabelKey]int64{},
		Periods:      map[PeriodKey]*Metrics{},
	}
}

func addTo[K comparable](m map[K]*Metrics, k K, d Metrics) {
	if cur, ok := m[k]; ok {
		cur.Add(d)
		return
	}
	c := d
	m[k] = &c
}

// AddCampaign adds d to a campaign's totals (0: unmatched).
func (c *CounterDeltas) AddCampaign(campaignID int64, d Metrics) { addTo(c.Campaigns, campaignID, d) }

// AddDimension adds d to a campaign's row for one dimension value.
func (c *CounterDeltas) AddDimension(k DimensionKey, d Metrics) { addTo(c.Dimensions, k, d) }

// AddPeriod adds d to a campaign's row for the period holding at.
func (c *CounterDeltas) AddPeriod(campaignID int64, at time.Time, d Metrics) {
	addTo(c.Periods, PeriodKey{campaignID, PeriodOf(at)}, d)
}

// AddLabel adds n events to a label row.
func (c *CounterDeltas) AddLabel(k LabelKey, n int64) { c.Labels[k] += n }

// AddLeadsBounced adds n to a campaign's leads_bounced.
func (c *CounterDeltas) AddLeadsBounced(campaignID, n int64) { c.LeadsBounced[campaignID] += n }

type campaignRow struct {
	CampaignID int64 `json:"campaign_id"`
	Metrics
	LeadsBounced int64 `json:"leads_bounced"`
}

// ApplyCounterDeltas writes the deltas to the workspace's counter tables.
func ApplyCounterDeltas(ctx context.Context, db *gorm.DB, workspaceID int64, c *CounterDeltas) error {
	// Campaign totals.
	ids := map[int64]bool{}
	for id, m := range c.Campaigns {
		if !m.IsZero() {
			ids[id] = true
		}
	}
	for id, n := range c.LeadsBounced {
		if n != 0 {
			ids[id] = true
		}
	}
	var camp []campaignRow
	for id := range ids {
		var m Metrics
		if p := c.Campaigns[id]; p != nil {
			m = *p
		}
		camp = append(camp, campaignRow{CampaignID: id, Metrics: m, LeadsBounced: c.LeadsBounced[id]})
	}
	slices.SortFunc(camp, func(a, b campaignRow) int { return cmp.Compare(a.CampaignID, b.CampaignID) })

	type dimRow struct {
		CampaignID int64  `json:"campaign_id"`
		Dimension  string `json:"dimension"`
		Value      string `json:"value"`
		Metrics
	}
	var dims []dimRow
	for k, m := range c.Dimensions {
		if !m.IsZero() {
			dims = append(dims, dimRow{k.CampaignID, k.Dimension, k.Value, *m})
		}
	}
	slices.SortFunc(dims, func(a, b dimRow) int {
		return cmp.Or(cmp.Compare(a.CampaignID, b.CampaignID), strings.Compare(a.Dimension, b.Dimension), strings.Compare(a.Value, b.Value))
	})

	type labelRow struct {
		CampaignID int64  `json:"campaign_id"`
		Label      string `json:"label"`
		Class      string `json:"class"`
		Code       string `json:"code"`
		Events     int64  `json:"events"`
	}
	var labels []labelRow
	for k, n := range c.Labels {
		if n != 0 {
			labels = append(labels, labelRow{k.CampaignID, k.Label, k.Class, k.Code, n})
		}
	}
	slices.SortFunc(labels, func(a, b labelRow) int {
		return cmp.Or(cmp.Compare(a.CampaignID, b.CampaignID), strings.Compare(a.Label, b.Label),
			strings.Compare(a.Class, b.Class), strings.Compare(a.Code, b.Code))
	})

	type periodRow struct {
		CampaignID  int64     `json:"campaign_id"`
		PeriodStart time.Time `json:"period_start"`
		Metrics
	}
	var periods []periodRow
	for k, m := range c.Periods {
		if !m.IsZero() {
			periods = append(periods, periodRow{k.CampaignID, k.PeriodStart, *m})
		}
	}
	slices.SortFunc(periods, func(a, b periodRow) int {
		return cmp.Or(cmp.Compare(a.CampaignID, b.CampaignID), a.PeriodStart.Compare(b.PeriodStart))
	})
	if len(camp)+len(dims)+len(labels)+len(periods) == 0 {
		return nil
	}
	const name = "upsert-counters"
	args := []any{workspaceID}
	for _, rows := range []any{camp, dims, labels, periods} {
		payload, err := bulk(name, rows)
		if err != nil {
			return err
		}
		if payload == "null" {
			payload = "[]"
		}
		args = append(args, payload)
	}
	_, err := execNamed(ctx, db, name, args...)
	return err
}

// CounterSnapshot is every non-zero counter row of a workspace, either as
// stored or as aggregated from scratch over events and sent messages; the
// two must be equal (StoredCounters, AggregateCounters).
type CounterSnapshot struct {
	Campaigns  map[int64]CampaignCounters
	Dimensions map[DimensionKey]Metrics
	Labels     map[LabelKey]int64
	Periods    map[PeriodKey]Metrics
}

func scanMetrics(r *sql.Rows, head []any, m *Metrics, tail ...any) error {
	dst := append(head, &m.Sent, &m.Events, &m.Bounced, &m.Hard, &m.Soft, &m.Complaints, &m.AutoReplies, &m.Delayed, &m.Delivered)
	dst = append(dst, tail...)
	return r.Scan(dst...)
}

func snapshot(ctx context.Context, db *gorm.DB, workspaceID int64, prefix string) (*CounterSnapshot, error) {
	s := &CounterSnapshot{
		Campaigns:  map[int64]CampaignCounters{},
		Dimensions: map[DimensionKey]Metrics{},
		Labels:     map[LabelKey]int64{},
		Periods:    map[PeriodKey]Metrics{},
	}
	err := queryNamed(ctx, db, prefix+"-campaign-counters", func(r *sql.Rows) error {
		c := CampaignCounters{WorkspaceID: workspaceID}
		if err := scanMetrics(r, []any{&c.CampaignID}, &c.Metrics, &c.LeadsBounced); err != nil {
			return err
		}
		s.Campaigns[c.CampaignID] = c
		return nil
	}, workspaceID)
	if err != nil {
		return nil, err
	}
	err = queryNamed(ctx, db, prefix+"-dimension-counters", func(r *sql.Rows) error {
		var k DimensionKey
		var m Metrics
		if err := scanMetrics(r, []any{&k.CampaignID, &k.Dimension, &k.Value}, &m); err != nil {
			return err
		}
		s.Dimensions[k] = m
		return nil
	}, workspaceID)
	if err != nil {
		return nil, err
	}
	err = queryNamed(ctx, db, prefix+"-label-counters", func(r *sql.Rows) error {
		var k LabelKey
		var n int64
		if err := r.Scan(&k.CampaignID, &k.Label, &k.Class, &k.Code, &n); err != nil {
			return err
		}
		s.Labels[k] = n
		return nil
	}, workspaceID)
	if err != nil {
		return nil, err
	}
	err = queryNamed(ctx, db, prefix+"-period-counters", func(r *sql.Rows) error {
		var k PeriodKey
		var m Metrics
		if err := scanMetrics(r, []any{&k.CampaignID, &k.PeriodStart}, &m); err != nil {
			return err
		}
		k.PeriodStart = k.PeriodStart.UTC()
		s.Periods[k] = m
		return nil
	}, workspaceID)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// StoredCounters returns the workspace's non-zero counter rows.
func StoredCounters(ctx context.Context, db *gorm.DB, workspaceID int64) (*CounterSnapshot, error) {
	return snapshot(ctx, db, workspaceID, "stored")
}

// AggregateCounters computes what the workspace's counter rows must hold,
// from scratch over bounce_events and sent_messages (a scan: for checks and
// tests, never for serving reports).
func AggregateCounters(ctx context.Context, db *gorm.DB, workspaceID int64) (*CounterSnapshot, error) {
	return snapshot(ctx, db, workspaceID, "aggregate")
}

// RecountCounters rebuilds every counter row of the workspace from scratch
// over bounce_events and sent_messages, under the workspace's recording lock
// (run it in a transaction: db should be one). It scans the workspace's
// events: a repair for after deletions (a deleted campaign's or lead's
// events and sends) or a manual correction, never part of serving reports.
func RecountCounters(ctx context.Context, db *gorm.DB, workspaceID int64) error {
	if err := LockWorkspace(ctx, db, workspaceID); err != nil {
		return err
	}
	agg, err := AggregateCounters(ctx, db, workspaceID)
	if err != nil {
		return err
	}
	for _, table := range []string{"report_campaign_counters", "report_dimension_counters",
		"report_label_counters", "report_period_counters"} {
		if err := db.WithContext(ctx).Exec("DELETE FROM "+table+" WHERE workspace_id = ?", workspaceID).Error; err != nil {
			return Translate("recount counters: clear "+table, err)
		}
	}
	d := NewCounterDeltas()
	for id, c := range agg.Campaigns {
		d.AddCampaign(id, c.Metrics)
		d.AddLeadsBounced(id, c.LeadsBounced)
	}
	for k, m := range agg.Dimensions {
		d.AddDimension(k, m)
	}
	for k, n := range agg.Labels {
		d.AddLabel(k, n)
	}
	for k, m := range agg.Periods {
		addTo(d.Periods, k, m)
	}
	return ApplyCounterDeltas(ctx, db, workspaceID, d)
}
