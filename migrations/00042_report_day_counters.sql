-- Reports (issue 9): the daily series without summing 96 periods a day.
--
-- report_day_counters rolls report_period_counters (15-minute periods, kept
-- in the recording transaction by internal/tracking) up into UTC calendar
-- days, through statement triggers on report_period_counters, so it changes
-- in the same transaction as the periods. A day in another time zone is
-- [local midnight, next local midnight), both on UTC quarter hours; the
-- report takes the UTC days between the UTC midnights nearest to those two
-- instants and adds or subtracts the few 15-minute periods in between
-- (at most 48 at each end; 4 for UTC+1), which is exact for any zone.
--
-- The partial index on report_block_counters finds the periods a
-- sender-side block burst must contain (a window of four periods with at
-- least 10 blocks has a period with at least 3) without reading the others.

-- +goose Up
CREATE TABLE report_day_counters (
    workspace_id   bigint NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    campaign_id    bigint NOT NULL,
    day            date   NOT NULL, -- UTC
    sent           bigint NOT NULL DEFAULT 0,
    events         bigint NOT NULL DEFAULT 0,
    bounced        bigint NOT NULL DEFAULT 0,
    hard           bigint NOT NULL DEFAULT 0,
    soft           bigint NOT NULL DEFAULT 0,
    complaints     bigint NOT NULL DEFAULT 0,
    auto_replies   bigint NOT NULL DEFAULT 0,
    delayed        bigint NOT NULL DEFAULT 0,
    delivered      bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (workspace_id, campaign_id, day)
);

-- +goose StatementBegin
CREATE FUNCTION report_day_counters_apply() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO report_day_counters AS c (workspace_id, campaign_id, day, sent, events, bounced, hard, soft,
                                              complaints, auto_replies, delayed, delivered)
        SELECT n.workspace_id, n.campaign_id, (n.period_start AT TIME ZONE 'UTC')::date,
               sum(n.sent), sum(n.events), sum(n.bounced), sum(n.hard), sum(n.soft), sum(n.complaints),
               sum(n.auto_replies), sum(n.delayed), sum(n.delivered)
        FROM new_rows n
        GROUP BY 1, 2, 3
        ORDER BY 1, 2, 3
        ON CONFLICT (workspace_id, campaign_id, day) DO UPDATE
        SET sent = c.sent + EXCLUDED.sent, events = c.events + EXCLUDED.events,
            bounced = c.bounced + EXCLUDED.bounced, hard = c.hard + EXCLUDED.hard, soft = c.soft + EXCLUDED.soft,
            complaints = c.complaints + EXCLUDED.complaints, auto_replies = c.auto_replies + EXCLUDED.auto_replies,
            delayed = c.delayed + EXCLUDED.delayed, delivered = c.delivered + EXCLUDED.delivered;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO report_day_counters AS c (workspace_id, campaign_id, day, sent, events, bounced, hard, soft,
                                              complaints, auto_replies, delayed, delivered)
        SELECT d.workspace_id, d.campaign_id, d.day, sum(d.sent), sum(d.events), sum(d.bounced), sum(d.hard),
               sum(d.soft), sum(d.complaints), sum(d.auto_replies), sum(d.delayed), sum(d.delivered)
        FROM (SELECT n.workspace_id, n.campaign_id, (n.period_start AT TIME ZONE 'UTC')::date AS day, n.sent, n.events,
                     n.bounced, n.hard, n.soft, n.complaints, n.auto_replies, n.delayed, n.delivered
              FROM new_rows n
              UNION ALL
              SELECT o.workspace_id, o.campaign_id, (o.period_start AT TIME ZONE 'UTC')::date, -o.sent, -o.events,
                     -o.bounced, -o.hard, -o.soft, -o.complaints, -o.auto_replies, -o.delayed, -o.delivered
              FROM old_rows o) d
        GROUP BY 1, 2, 3
        ORDER BY 1, 2, 3
        ON CONFLICT (workspace_id, campaign_id, day) DO UPDATE
        SET sent = c.sent + EXCLUDED.sent, events = c.events + EXCLUDED.events,
            bounced = c.bounced + EXCLUDED.bounced, hard = c.hard + EXCLUDED.hard, soft = c.soft + EXCLUDED.soft,
            complaints = c.complaints + EXCLUDED.complaints, auto_replies = c.auto_replies + EXCLUDED.auto_replies,
            delayed = c.delayed + EXCLUDED.delayed, delivered = c.delivered + EXCLUDED.delivered;
    ELSE
        INSERT INTO report_day_counters AS c (workspace_id, campaign_id, day, sent, events, bounced, hard, soft,
                                              complaints, auto_replies, delayed, delivered)
        SELECT o.workspace_id, o.campaign_id, (o.period_start AT TIME ZONE 'UTC')::date,
               -sum(o.sent), -sum(o.events), -sum(o.bounced), -sum(o.hard), -sum(o.soft), -sum(o.complaints),
               -sum(o.auto_replies), -sum(o.delayed), -sum(o.delivered)
        FROM old_rows o
        GROUP BY 1, 2, 3
        ORDER BY 1, 2, 3
        ON CONFLICT (workspace_id, campaign_id, day) DO UPDATE
        SET sent = c.sent + EXCLUDED.sent, events = c.events + EXCLUDED.events,
            bounced = c.bounced + EXCLUDED.bounced, hard = c.hard + EXCLUDED.hard, soft = c.soft + EXCLUDED.soft,
            complaints = c.complaints + EXCLUDED.complaints, auto_replies = c.auto_replies + EXCLUDED.auto_replies,
            delayed = c.delayed + EXCLUDED.delayed, delivered = c.delivered + EXCLUDED.delivered;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER report_day_counters_insert AFTER INSERT ON report_period_counters
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION report_day_counters_apply();
CREATE TRIGGER report_day_counters_update AFTER UPDATE ON report_period_counters
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION report_day_counters_apply();
CREATE TRIGGER report_day_counters_delete AFTER DELETE ON report_period_counters
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION report_day_counters_apply();

INSERT INTO report_day_counters (workspace_id, campaign_id, day, sent, events, bounced, hard, soft, complaints,
                                 auto_replies, delayed, delivered)
SELECT workspace_id, campaign_id, (period_start AT TIME ZONE 'UTC')::date, sum(sent), sum(events), sum(bounced),
       sum(hard), sum(soft), sum(complaints), sum(auto_replies), sum(delayed), sum(delivered)
FROM report_period_counters
GROUP BY 1, 2, 3;

CREATE INDEX report_block_counters_blocks_idx ON report_block_counters (workspace_id, campaign_id, period_start)
    WHERE blocks > 0;

-- +goose Down
DROP INDEX IF EXISTS report_block_counters_blocks_idx;
DROP TRIGGER IF EXISTS report_day_counters_delete ON report_period_counters;
DROP TRIGGER IF EXISTS report_day_counters_update ON report_period_counters;
DROP TRIGGER IF EXISTS report_day_counters_insert ON report_period_counters;
DROP FUNCTION IF EXISTS report_day_counters_apply();
DROP TABLE IF EXISTS report_day_counters;
