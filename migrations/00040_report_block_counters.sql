-- Reports (issue 9): sender-side blocks per campaign and 15-minute period,
-- for the "burst of sender-side blocks" signal (internal/report).
--
-- The other report counters (00001) have no label per period, so they cannot
-- tell when sender-side blocks happened. This table counts, per campaign
-- (0: unmatched) and 15-minute period of occurred_at (UTC start, aligned like
-- report_period_counters):
--   bounced  bounce-kind events
--   blocks   bounce-kind events under a sender-side label (classification.md:
--            Blocked, Spam or content, Policy or authentication), any class
--
-- It is kept by statement-level triggers on bounce_events, so it changes in
-- the same transaction as every write of an event (recording, reprocessing,
-- deletion, a campaign deleted: ON DELETE SET NULL moves its rows to 0),
-- without a change to internal/tracking. Each statement applies one upsert
-- of per-key sums, rows in key order (concurrent writers lock them in the
-- same order within a statement; tracking retries a deadlock between
-- multi-statement transactions).

-- +goose Up
CREATE TABLE report_block_counters (
    workspace_id  bigint      NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    campaign_id   bigint      NOT NULL,
    period_start  timestamptz NOT NULL,
    bounced       bigint      NOT NULL DEFAULT 0,
    blocks        bigint      NOT NULL DEFAULT 0,
    PRIMARY KEY (workspace_id, campaign_id, period_start),
    CONSTRAINT report_block_counters_aligned
        CHECK (date_bin('15 minutes', period_start, timestamptz '2000-01-01 00:00:00+00') = period_start)
);

-- +goose StatementBegin
CREATE FUNCTION report_block_counters_apply() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO report_block_counters AS c (workspace_id, campaign_id, period_start, bounced, blocks)
        SELECT d.workspace_id, d.campaign_id, d.period_start, sum(d.bounced), sum(d.blocks)
        FROM (SELECT n.workspace_id, COALESCE(n.campaign_id, 0) AS campaign_id,
                     date_bin('15 minutes', n.occurred_at, timestamptz '2000-01-01 00:00:00+00') AS period_start,
                     1 AS bounced,
                     (n.label IN ('Blocked', 'Spam or content', 'Policy or authentication'))::int AS blocks
              FROM new_rows n WHERE n.kind = 'bounce') d
        GROUP BY 1, 2, 3
        ORDER BY 1, 2, 3
        ON CONFLICT (workspace_id, campaign_id, period_start) DO UPDATE
        SET bounced = c.bounced + EXCLUDED.bounced, blocks = c.blocks + EXCLUDED.blocks;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO report_block_counters AS c (workspace_id, campaign_id, period_start, bounced, blocks)
        SELECT d.workspace_id, d.campaign_id, d.period_start, sum(d.bounced), sum(d.blocks)
        FROM (SELECT o.workspace_id, COALESCE(o.campaign_id, 0) AS campaign_id,
                     date_bin('15 minutes', o.occurred_at, timestamptz '2000-01-01 00:00:00+00') AS period_start,
                     -1 AS bounced,
                     -(o.label IN ('Blocked', 'Spam or content', 'Policy or authentication'))::int AS blocks
              FROM old_rows o WHERE o.kind = 'bounce') d
        GROUP BY 1, 2, 3
        ORDER BY 1, 2, 3
        ON CONFLICT (workspace_id, campaign_id, period_start) DO UPDATE
        SET bounced = c.bounced + EXCLUDED.bounced, blocks = c.blocks + EXCLUDED.blocks;
    ELSE
        INSERT INTO report_block_counters AS c (workspace_id, campaign_id, period_start, bounced, blocks)
        SELECT d.workspace_id, d.campaign_id, d.period_start, sum(d.bounced), sum(d.blocks)
        FROM (SELECT n.workspace_id, COALESCE(n.campaign_id, 0) AS campaign_id,
                     date_bin('15 minutes', n.occurred_at, timestamptz '2000-01-01 00:00:00+00') AS period_start,
                     1 AS bounced,
                     (n.label IN ('Blocked', 'Spam or content', 'Policy or authentication'))::int AS blocks
              FROM new_rows n WHERE n.kind = 'bounce'
              UNION ALL
              SELECT o.workspace_id, COALESCE(o.campaign_id, 0),
                     date_bin('15 minutes', o.occurred_at, timestamptz '2000-01-01 00:00:00+00'),
                     -1, -(o.label IN ('Blocked', 'Spam or content', 'Policy or authentication'))::int
              FROM old_rows o WHERE o.kind = 'bounce') d
        GROUP BY 1, 2, 3
        HAVING sum(d.bounced) <> 0 OR sum(d.blocks) <> 0
        ORDER BY 1, 2, 3
        ON CONFLICT (workspace_id, campaign_id, period_start) DO UPDATE
        SET bounced = c.bounced + EXCLUDED.bounced, blocks = c.blocks + EXCLUDED.blocks;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER report_block_counters_insert AFTER INSERT ON bounce_events
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION report_block_counters_apply();
CREATE TRIGGER report_block_counters_update AFTER UPDATE ON bounce_events
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION report_block_counters_apply();
CREATE TRIGGER report_block_counters_delete AFTER DELETE ON bounce_events
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION report_block_counters_apply();

-- Counters for the events already stored.
INSERT INTO report_block_counters (workspace_id, campaign_id, period_start, bounced, blocks)
SELECT workspace_id, COALESCE(campaign_id, 0),
       date_bin('15 minutes', occurred_at, timestamptz '2000-01-01 00:00:00+00'),
       count(*), count(*) FILTER (WHERE label IN ('Blocked', 'Spam or content', 'Policy or authentication'))
FROM bounce_events WHERE kind = 'bounce'
GROUP BY 1, 2, 3;

-- +goose Down
DROP TRIGGER IF EXISTS report_block_counters_delete ON bounce_events;
DROP TRIGGER IF EXISTS report_block_counters_update ON bounce_events;
DROP TRIGGER IF EXISTS report_block_counters_insert ON bounce_events;
DROP FUNCTION IF EXISTS report_block_counters_apply();
DROP TABLE IF EXISTS report_block_counters;
