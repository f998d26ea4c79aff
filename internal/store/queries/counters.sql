-- Report counters: delta upserts applied in the recording transaction, the
-- stored rows, and the same figures aggregated from scratch over events and
-- sent messages (for checks, tests and RecountCounters); internal/report
-- reads the counters for the product's reports with its own SQL. Deltas may
-- be negative (reprocessing subtracts what an event no longer contributes).
-- Inputs are aggregated per key and sorted by the caller, so concurrent
-- transactions lock counter rows in one order.

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
