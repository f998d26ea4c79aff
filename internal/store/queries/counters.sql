-- Report counters: delta upserts applied in the recording transaction, the
-- report reads over them, and the same figures aggregated from scratch over
-- events and sent messages (for checks and tests). Deltas may be negative
-- (reprocessing subtracts what an event no longer contributes). Inputs are
-- aggregated per key and sorted by the caller, so concurrent transactions
-- lock counter rows in one order.

-- name: upsert-counters
-- Adds deltas to the four counter tables of workspace $1 in one statement
-- (one round trip): $2 campaign rows, $3 dimension rows, $4 label rows, $5
-- period rows, each a jsonb array (possibly empty).
WITH campaigns AS (
    INSERT INTO report_campaign_counters AS c (workspace_id, campaign_id, sent, events, bounced, hard, soft,
                                               complaints, auto_replies, delayed, delivered, leads_bounced)
    SELECT $1::bigint, d.campaign_id, d.sent, d.events, d.bounced, d.hard, d.soft, d.complaints, d.auto_replies,
           d.delayed, d.delivered, d.leads_bounced
    FROM jsonb_to_recordset($2::jsonb) AS d(campaign_id bigint, sent bigint, events bigint, bounced bigint,
                                            hard bigint, soft bigint, complaints bigint,
                                            auto_replies bigint, delayed bigint, delivered bigint,
                                            leads_bounced bigint)
    ON CONFLICT (workspace_id, campaign_id) DO UPDATE
    SET sent = c.sent + EXCLUDED.sent, events = c.events + EXCLUDED.events,
        bounced = c.bounced + EXCLUDED.bounced, hard = c.hard + EXCLUDED.hard, soft = c.soft + EXCLUDED.soft,
        complaints = c.complaints + EXCLUDED.complaints, auto_replies = c.auto_replies + EXCLUDED.auto_replies,
        delayed = c.delayed + EXCLUDED.delayed, delivered = c.delivered + EXCLUDED.delivered,
        leads_bounced = c.leads_bounced + EXCLUDED.leads_bounced
), dimensions AS (
    INSERT INTO report_dimension_counters AS c (workspace_id, campaign_id, dimension, value, sent, events,
                                                bounced, hard, soft, complaints, auto_replies, delayed,
                                                delivered)
    SELECT $1::bigint, d.campaign_id, d.dimension, d.value, d.sent, d.events, d.bounced, d.hard, d.soft,
           d.complaints, d.auto_replies, d.delayed, d.delivered
    FROM jsonb_to_recordset($3::jsonb) AS d(campaign_id bigint, dimension text, value text, sent bigint,
                                            events bigint, bounced bigint, hard bigint, soft bigint,
                                            complaints bigint, auto_replies bigint, delayed bigint,
                                            delivered bigint)
    ON CONFLICT (workspace_id, campaign_id, dimension, value) DO UPDATE
    SET sent = c.sent + EXCLUDED.sent, events = c.events + EXCLUDED.events,
        bounced = c.bounced + EXCLUDED.bounced, hard = c.hard + EXCLUDED.hard, soft = c.soft + EXCLUDED.soft,
        complaints = c.complaints + EXCLUDED.complaints, auto_replies = c.auto_replies + EXCLUDED.auto_replies,
        delayed = c.delayed + EXCLUDED.delayed, delivered = c.delivered + EXCLUDED.delivered
), labels AS (
    INSERT INTO report_label_counters AS c (workspace_id, campaign_id, label, class, code, events)
    SELECT $1::bigint, d.campaign_id, d.label, d.class, d.code, d.events
    FROM jsonb_to_recordset($4::jsonb) AS d(campaign_id bigint, label text, class text, code text, events bigint)
    ON CONFLICT (workspace_id, campaign_id, label, class, code) DO UPDATE
    SET events = c.events + EXCLUDED.events
)
INSERT INTO report_period_counters AS c (workspace_id, campaign_id, period_start, sent, events, bounced,
                                         hard, soft, complaints, auto_replies, delayed, delivered)
SELECT $1::bigint, d.campaign_id, d.period_start, d.sent, d.events, d.bounced, d.hard, d.soft, d.complaints,
       d.auto_replies, d.delayed, d.delivered
FROM jsonb_to_recordset($5::jsonb) AS d(campaign_id bigint, period_start timestamptz, sent bigint,
                                        events bigint, bounced bigint, hard bigint, soft bigint,
                                        complaints bigint, auto_replies bigint, delayed bigint,
                                        delivered bigint)
ON CONFLICT (workspace_id, campaign_id, period_start) DO UPDATE
SET sent = c.sent + EXCLUDED.sent, events = c.events + EXCLUDED.events,
    bounced = c.bounced + EXCLUDED.bounced, hard = c.hard + EXCLUDED.hard, soft = c.soft + EXCLUDED.soft,
    complaints = c.complaints + EXCLUDED.complaints, auto_replies = c.auto_replies + EXCLUDED.auto_replies,
    delayed = c.delayed + EXCLUDED.delayed, delivered = c.delivered + EXCLUDED.delivered;

-- name: report-totals
-- Totals of one campaign ($2; 0 for the workspace's unmatched events).
SELECT COALESCE(SUM(sent), 0)::bigint, COALESCE(SUM(events), 0)::bigint, COALESCE(SUM(bounced), 0)::bigint,
       COALESCE(SUM(hard), 0)::bigint, COALESCE(SUM(soft), 0)::bigint, COALESCE(SUM(complaints), 0)::bigint,
       COALESCE(SUM(auto_replies), 0)::bigint, COALESCE(SUM(delayed), 0)::bigint, COALESCE(SUM(delivered), 0)::bigint,
       COALESCE(SUM(leads_bounced), 0)::bigint
FROM report_campaign_counters
WHERE workspace_id = $1
  AND campaign_id = $2::bigint;

-- name: report-totals-all
-- Every campaign of the workspace ($2 must be NULL; unmatched events, campaign
-- 0, are left out).
-- Totals of one campaign ($2; 0 for the workspace's unmatched events).
SELECT COALESCE(SUM(sent), 0)::bigint, COALESCE(SUM(events), 0)::bigint, COALESCE(SUM(bounced), 0)::bigint,
       COALESCE(SUM(hard), 0)::bigint, COALESCE(SUM(soft), 0)::bigint, COALESCE(SUM(complaints), 0)::bigint,
       COALESCE(SUM(auto_replies), 0)::bigint, COALESCE(SUM(delayed), 0)::bigint, COALESCE(SUM(delivered), 0)::bigint,
       COALESCE(SUM(leads_bounced), 0)::bigint
FROM report_campaign_counters
WHERE workspace_id = $1
  AND campaign_id <> 0 AND $2::bigint IS NULL;

-- name: report-labels
-- Per label, class and code; the caller folds codes into label rows and
-- keeps each label's top codes.
SELECT label, class, code, SUM(events)::bigint
FROM report_label_counters
WHERE workspace_id = $1
  AND campaign_id = $2::bigint
GROUP BY label, class, code
HAVING SUM(events) <> 0
ORDER BY label, SUM(events) DESC, class, code;

-- name: report-labels-all
-- Every campaign of the workspace ($2 must be NULL; unmatched events, campaign
-- 0, are left out).
-- Per label, class and code; the caller folds codes into label rows and
-- keeps each label's top codes.
SELECT label, class, code, SUM(events)::bigint
FROM report_label_counters
WHERE workspace_id = $1
  AND campaign_id <> 0 AND $2::bigint IS NULL
GROUP BY label, class, code
HAVING SUM(events) <> 0
ORDER BY label, SUM(events) DESC, class, code;

-- name: report-dimension
-- Per value of one dimension ($3: provider or mailbox).
SELECT value, SUM(sent)::bigint, SUM(events)::bigint, SUM(bounced)::bigint, SUM(hard)::bigint, SUM(soft)::bigint, SUM(complaints)::bigint,
       SUM(auto_replies)::bigint, SUM(delayed)::bigint, SUM(delivered)::bigint
FROM report_dimension_counters
WHERE workspace_id = $1
  AND campaign_id = $2::bigint
  AND dimension = $3::text
GROUP BY value
ORDER BY value;

-- name: report-dimension-all
-- Every campaign of the workspace ($2 must be NULL; unmatched events, campaign
-- 0, are left out).
-- Per value of one dimension ($3: provider or mailbox).
SELECT value, SUM(sent)::bigint, SUM(events)::bigint, SUM(bounced)::bigint, SUM(hard)::bigint, SUM(soft)::bigint, SUM(complaints)::bigint,
       SUM(auto_replies)::bigint, SUM(delayed)::bigint, SUM(delivered)::bigint
FROM report_dimension_counters
WHERE workspace_id = $1
  AND campaign_id <> 0 AND $2::bigint IS NULL
  AND dimension = $3::text
GROUP BY value
ORDER BY value;

-- name: report-daily
-- Daily series in time zone $3 (an IANA name) over [$4, $5).
SELECT (period_start AT TIME ZONE $3::text)::date AS day, SUM(sent)::bigint, SUM(events)::bigint, SUM(bounced)::bigint, SUM(hard)::bigint,
       SUM(soft)::bigint, SUM(complaints)::bigint, SUM(auto_replies)::bigint, SUM(delayed)::bigint, SUM(delivered)::bigint
FROM report_period_counters
WHERE workspace_id = $1
  AND campaign_id = $2::bigint
  AND period_start >= $4::timestamptz AND period_start < $5::timestamptz
GROUP BY day
ORDER BY day;

-- name: report-daily-all
-- Every campaign of the workspace ($2 must be NULL; unmatched events, campaign
-- 0, are left out).
-- Daily series in time zone $3 (an IANA name) over [$4, $5).
SELECT (period_start AT TIME ZONE $3::text)::date AS day, SUM(sent)::bigint, SUM(events)::bigint, SUM(bounced)::bigint, SUM(hard)::bigint,
       SUM(soft)::bigint, SUM(complaints)::bigint, SUM(auto_replies)::bigint, SUM(delayed)::bigint, SUM(delivered)::bigint
FROM report_period_counters
WHERE workspace_id = $1
  AND campaign_id <> 0 AND $2::bigint IS NULL
  AND period_start >= $4::timestamptz AND period_start < $5::timestamptz
GROUP BY day
ORDER BY day;

-- name: aggregate-campaign-counters
-- From scratch: what report_campaign_counters must hold for workspace $1.
WITH ev AS (
    SELECT COALESCE(campaign_id, 0) AS campaign_id, count(*) AS events,
           count(*) FILTER (WHERE kind = 'bounce') AS bounced,
           count(*) FILTER (WHERE class = 'hard') AS hard,
           count(*) FILTER (WHERE class = 'soft') AS soft,
           count(*) FILTER (WHERE kind = 'complaint') AS complaints,
           count(*) FILTER (WHERE kind = 'auto_reply') AS auto_replies,
           count(*) FILTER (WHERE kind = 'delayed') AS delayed,
           count(*) FILTER (WHERE kind = 'delivered') AS delivered,
           count(DISTINCT lead_id) FILTER (WHERE kind = 'bounce') AS leads_bounced
    FROM bounce_events WHERE workspace_id = $1
    GROUP BY 1
), se AS (
    SELECT campaign_id, count(*) AS sent FROM sent_messages WHERE workspace_id = $1 GROUP BY 1
)
SELECT COALESCE(ev.campaign_id, se.campaign_id), COALESCE(se.sent, 0), COALESCE(ev.events, 0),
       COALESCE(ev.bounced, 0), COALESCE(ev.hard, 0), COALESCE(ev.soft, 0), COALESCE(ev.complaints, 0),
       COALESCE(ev.auto_replies, 0), COALESCE(ev.delayed, 0), COALESCE(ev.delivered, 0),
       COALESCE(ev.leads_bounced, 0)
FROM ev FULL JOIN se ON ev.campaign_id = se.campaign_id
ORDER BY 1;

-- name: stored-campaign-counters
SELECT campaign_id, sent, events, bounced, hard, soft, complaints, auto_replies, delayed, delivered,
       leads_bounced
FROM report_campaign_counters
WHERE workspace_id = $1
  AND (sent, events, bounced, hard, soft, complaints, auto_replies, delayed, delivered, leads_bounced)
      <> (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
ORDER BY 1;

-- name: aggregate-label-counters
SELECT COALESCE(campaign_id, 0), label, COALESCE(class, ''),
       CASE WHEN status <> '' THEN status ELSE reply_code END, count(*)
FROM bounce_events
WHERE workspace_id = $1
GROUP BY 1, 2, 3, 4
ORDER BY 1, 2, 3, 4;

-- name: stored-label-counters
SELECT campaign_id, label, class, code, events
FROM report_label_counters
WHERE workspace_id = $1 AND events <> 0
ORDER BY 1, 2, 3, 4;

-- name: aggregate-dimension-counters
WITH ev AS (
    SELECT COALESCE(campaign_id, 0) AS campaign_id, 'provider' AS dimension, provider AS value, kind, class
    FROM bounce_events WHERE workspace_id = $1
    UNION ALL
    SELECT COALESCE(campaign_id, 0), 'mailbox', COALESCE(sending_mailbox_id::text, ''), kind, class
    FROM bounce_events WHERE workspace_id = $1
), evc AS (
    SELECT campaign_id, dimension, value, count(*) AS events,
           count(*) FILTER (WHERE kind = 'bounce') AS bounced,
           count(*) FILTER (WHERE class = 'hard') AS hard,
           count(*) FILTER (WHERE class = 'soft') AS soft,
           count(*) FILTER (WHERE kind = 'complaint') AS complaints,
           count(*) FILTER (WHERE kind = 'auto_reply') AS auto_replies,
           count(*) FILTER (WHERE kind = 'delayed') AS delayed,
           count(*) FILTER (WHERE kind = 'delivered') AS delivered
    FROM ev GROUP BY 1, 2, 3
), se AS (
    SELECT campaign_id, 'provider' AS dimension, provider AS value, count(*) AS sent
    FROM sent_messages WHERE workspace_id = $1 GROUP BY 1, 2, 3
    UNION ALL
    SELECT campaign_id, 'mailbox', COALESCE(mailbox_id::text, ''), count(*)
    FROM sent_messages WHERE workspace_id = $1 GROUP BY 1, 2, 3
)
SELECT COALESCE(evc.campaign_id, se.campaign_id), COALESCE(evc.dimension, se.dimension),
       COALESCE(evc.value, se.value), COALESCE(se.sent, 0), COALESCE(evc.events, 0),
       COALESCE(evc.bounced, 0), COALESCE(evc.hard, 0), COALESCE(evc.soft, 0),
       COALESCE(evc.complaints, 0), COALESCE(evc.auto_replies, 0), COALESCE(evc.delayed, 0),
       COALESCE(evc.delivered, 0)
FROM evc FULL JOIN se
  ON evc.campaign_id = se.campaign_id AND evc.dimension = se.dimension AND evc.value = se.value
ORDER BY 1, 2, 3;

-- name: stored-dimension-counters
SELECT campaign_id, dimension, value, sent, events, bounced, hard, soft, complaints, auto_replies,
       delayed, delivered
FROM report_dimension_counters
WHERE workspace_id = $1
  AND (sent, events, bounced, hard, soft, complaints, auto_replies, delayed, delivered)
      <> (0, 0, 0, 0, 0, 0, 0, 0, 0)
ORDER BY 1, 2, 3;

-- name: aggregate-period-counters
WITH ev AS (
    SELECT COALESCE(campaign_id, 0) AS campaign_id,
           date_bin('15 minutes', occurred_at, timestamptz '2000-01-01 00:00:00+00') AS period_start,
           count(*) AS events,
           count(*) FILTER (WHERE kind = 'bounce') AS bounced,
           count(*) FILTER (WHERE class = 'hard') AS hard,
           count(*) FILTER (WHERE class = 'soft') AS soft,
           count(*) FILTER (WHERE kind = 'complaint') AS complaints,
           count(*) FILTER (WHERE kind = 'auto_reply') AS auto_replies,
           count(*) FILTER (WHERE kind = 'delayed') AS delayed,
           count(*) FILTER (WHERE kind = 'delivered') AS delivered
    FROM bounce_events WHERE workspace_id = $1 GROUP BY 1, 2
), se AS (
    SELECT campaign_id,
           date_bin('15 minutes', sent_at, timestamptz '2000-01-01 00:00:00+00') AS period_start,
           count(*) AS sent
    FROM sent_messages WHERE workspace_id = $1 GROUP BY 1, 2
)
SELECT COALESCE(ev.campaign_id, se.campaign_id), COALESCE(ev.period_start, se.period_start),
       COALESCE(se.sent, 0), COALESCE(ev.events, 0), COALESCE(ev.bounced, 0), COALESCE(ev.hard, 0),
       COALESCE(ev.soft, 0), COALESCE(ev.complaints, 0), COALESCE(ev.auto_replies, 0),
       COALESCE(ev.delayed, 0), COALESCE(ev.delivered, 0)
FROM ev FULL JOIN se ON ev.campaign_id = se.campaign_id AND ev.period_start = se.period_start
ORDER BY 1, 2;

-- name: stored-period-counters
SELECT campaign_id, period_start, sent, events, bounced, hard, soft, complaints, auto_replies,
       delayed, delivered
FROM report_period_counters
WHERE workspace_id = $1
  AND (sent, events, bounced, hard, soft, complaints, auto_replies, delayed, delivered)
      <> (0, 0, 0, 0, 0, 0, 0, 0, 0)
ORDER BY 1, 2;
