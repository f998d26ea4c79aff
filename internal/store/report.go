package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Report reads serve issue 9's campaign reports from the counter tables
// alone (never scanning events). campaignID nil means every campaign of the
// workspace (unmatched events, campaign 0, are left out of such totals; read
// them with campaignID pointing at 0). Each read has a one-campaign query and
// an "-all" variant so both use the counters' primary keys.

// scoped returns the query for one campaign or, for nil, its "-all"
// variant, and the campaign argument.
func scoped(name string, campaignID *int64) (string, any) {
	if campaignID == nil {
		return name + "-all", nil
	}
	return name, *campaignID
}

// ReportTotals returns the counters of one campaign or of all campaigns.
func ReportTotals(ctx context.Context, db *gorm.DB, workspaceID int64, campaignID *int64) (CampaignCounters, error) {
	c := CampaignCounters{WorkspaceID: workspaceID}
	if campaignID != nil {
		c.CampaignID = *campaignID
	}
	name, arg := scoped("report-totals", campaignID)
	err := queryNamed(ctx, db, name, func(r *sql.Rows) error {
		return scanMetrics(r, nil, &c.Metrics, &c.LeadsBounced)
	}, workspaceID, arg)
	return c, err
}

// LabelCodeCount is the number of events under one label, class and code
// (status, else reply code, else "").
type LabelCodeCount struct {
	Label  string
	Class  string // soft, hard or ""
	Code   string
	Events int64
}

// ReportLabels returns the non-zero (label, class, code) counts, by label,
// then by count (highest first): a label's row is the sum of its entries,
// its soft/hard split the sums per class, its top codes the first entries.
func ReportLabels(ctx context.Context, db *gorm.DB, workspaceID int64, campaignID *int64) ([]LabelCodeCount, error) {
	var out []LabelCodeCount
	name, arg := scoped("report-labels", campaignID)
	err := queryNamed(ctx, db, name, func(r *sql.Rows) error {
		var l LabelCodeCount
		if err := r.Scan(&l.Label, &l.Class, &l.Code, &l.Events); err != nil {
			return err
		}
		out = append(out, l)
		return nil
	}, workspaceID, arg)
	return out, err
}

// DimensionRow is the counters of one provider or one sending mailbox.
type DimensionRow struct {
	Value string // provider name, or mailbox ID in decimal ("" unknown)
	Metrics
}

// ReportDimension returns the counters per value of dimension
// (DimensionProvider or DimensionMailbox), ordered by value.
func ReportDimension(ctx context.Context, db *gorm.DB, workspaceID int64, campaignID *int64, dimension string) ([]DimensionRow, error) {
	if dimension != DimensionProvider && dimension != DimensionMailbox {
		return nil, fmt.Errorf("store: report dimension %q: not provider or mailbox", dimension)
	}
	var out []DimensionRow
	name, arg := scoped("report-dimension", campaignID)
	err := queryNamed(ctx, db, name, func(r *sql.Rows) error {
		var d DimensionRow
		if err := scanMetrics(r, []any{&d.Value}, &d.Metrics); err != nil {
			return err
		}
		out = append(out, d)
		return nil
	}, workspaceID, arg, dimension)
	return out, err
}

// DailyRow is the counters of one calendar day in the requested time zone.
type DailyRow struct {
	Day time.Time // midnight UTC of the calendar date (only Y-M-D matter)
	Metrics
}

// ReportDaily returns the daily series over [from, to) in time zone tz (an
// IANA name such as "Europe/Paris"; exact for every zone since counters are
// kept per 15 minutes). Days without activity are absent.
func ReportDaily(ctx context.Context, db *gorm.DB, workspaceID int64, campaignID *int64, tz string, from, to time.Time) ([]DailyRow, error) {
	if _, err := time.LoadLocation(tz); err != nil {
		return nil, fmt.Errorf("store: report daily: time zone %q: %w", tz, err)
	}
	var out []DailyRow
	name, arg := scoped("report-daily", campaignID)
	err := queryNamed(ctx, db, name, func(r *sql.Rows) error {
		var d DailyRow
		if err := scanMetrics(r, []any{&d.Day}, &d.Metrics); err != nil {
			return err
		}
		d.Day = time.Date(d.Day.Year(), d.Day.Month(), d.Day.Day(), 0, 0, 0, 0, time.UTC)
		out = append(out, d)
		return nil
	}, workspaceID, arg, tz, from.UTC(), to.UTC())
	return out, err
}
