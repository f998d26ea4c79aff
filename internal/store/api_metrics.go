package store

import (
	"context"

	"gorm.io/gorm"
)

// EventTotals are the recorded events of every workspace by kind and
// class, read from the report counters (one row per campaign, so this is
// cheap at any event volume). Unmatched events (campaign 0) are included.
type EventTotals struct {
	Hard, Soft, Delayed, AutoReplies, Complaints, Delivered int64
}

// SumEventTotals adds up the campaign counters of every workspace.
func SumEventTotals(ctx context.Context, db *gorm.DB) (EventTotals, error) {
	var t EventTotals
	err := db.WithContext(ctx).Raw(`SELECT COALESCE(SUM(hard), 0), COALESCE(SUM(soft), 0), COALESCE(SUM(delayed), 0),
		COALESCE(SUM(auto_replies), 0), COALESCE(SUM(complaints), 0), COALESCE(SUM(delivered), 0)
		FROM report_campaign_counters`).Row().Scan(&t.Hard, &t.Soft, &t.Delayed, &t.AutoReplies, &t.Complaints, &t.Delivered)
	return t, Translate("sum event totals", err)
}

// MailboxStatusCounts returns how many mailboxes of every workspace are in
// each status.
func MailboxStatusCounts(ctx context.Context, db *gorm.DB) (map[string]int64, error) {
	var rows []struct {
		Status string
		N      int64
	}
	err := db.WithContext(ctx).Model(&Mailbox{}).Select("status, count(*) AS n").Group("status").Scan(&rows).Error
	out := map[string]int64{}
	for _, r := range rows {
		out[r.Status] = r.N
	}
	return out, Translate("count mailboxes by status", err)
}
