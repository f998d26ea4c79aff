-- Reports (issue 9): the workspace report (every campaign) reads the
-- counters by time range across campaigns; the primary keys lead with the
-- campaign, so these indexes lead with the workspace and the time. They
-- hold key columns only, so counter updates stay HOT (no new index entry
-- when a counter row changes); only new rows add entries.

-- +goose Up
CREATE INDEX report_period_counters_ws_period_idx ON report_period_counters (workspace_id, period_start);
CREATE INDEX report_day_counters_ws_day_idx ON report_day_counters (workspace_id, day);
CREATE INDEX report_block_counters_ws_period_idx ON report_block_counters (workspace_id, period_start);

-- +goose Down
DROP INDEX IF EXISTS report_block_counters_ws_period_idx;
DROP INDEX IF EXISTS report_day_counters_ws_day_idx;
DROP INDEX IF EXISTS report_period_counters_ws_period_idx;
