-- The bounce report in one statement (one round trip), read from the report
-- counter tables only, never from bounce_events. {{SCOPE}} is replaced by the
-- campaign predicate: "campaign_id = $2::bigint" for one campaign, or
-- "campaign_id <> 0 AND $2::bigint IS NULL" for every campaign of the
-- workspace (campaign 0, unmatched events, is left out).
--
-- $1 workspace, $2 campaign (NULL for all), $3 IANA time zone, $4 first and
-- $5 last calendar day (inclusive) in that zone.
--
-- The statement starts with the stamp row (stamp.sql, one snapshot with the
-- figures), then: UNION ALL and the rows below. Every row has the shape
-- (section, k1, k2, k3, n0 .. n9):
--   totals    n0..n9 sent, events, bounced, hard, soft, complaints,
--             auto_replies, delayed, delivered, leads_bounced
--   label     k1 label, k2 class, k3 code, n0 events
--   dim       k1 dimension, k2 value, k3 mailbox name, n0..n8 metrics
--   day       k1 YYYY-MM-DD, n0..n8 metrics
--   burst     k1 end of the peak window's last period (RFC 3339, UTC),
--             n0 blocks, n1 bounced, n2 qualifying windows (a window ends
--             at each 15-minute period holding a bounce)
SELECT 'totals', '', '', '',
       COALESCE(SUM(sent), 0)::bigint, COALESCE(SUM(events), 0)::bigint, COALESCE(SUM(bounced), 0)::bigint,
       COALESCE(SUM(hard), 0)::bigint, COALESCE(SUM(soft), 0)::bigint, COALESCE(SUM(complaints), 0)::bigint,
       COALESCE(SUM(auto_replies), 0)::bigint, COALESCE(SUM(delayed), 0)::bigint,
       COALESCE(SUM(delivered), 0)::bigint, COALESCE(SUM(leads_bounced), 0)::bigint
FROM report_campaign_counters
WHERE workspace_id = $1 AND {{SCOPE}}
UNION ALL
SELECT 'label', label, class, code, SUM(events)::bigint, 0, 0, 0, 0, 0, 0, 0, 0, 0
FROM report_label_counters
WHERE workspace_id = $1 AND {{SCOPE}}
GROUP BY label, class, code
HAVING SUM(events) <> 0
UNION ALL
SELECT 'dim', d.dimension, d.value, COALESCE(m.name, ''), d.sent, d.events, d.bounced, d.hard, d.soft,
       d.complaints, d.auto_replies, d.delayed, d.delivered, 0
FROM (SELECT dimension, value, SUM(sent)::bigint AS sent, SUM(events)::bigint AS events,
             SUM(bounced)::bigint AS bounced, SUM(hard)::bigint AS hard, SUM(soft)::bigint AS soft,
             SUM(complaints)::bigint AS complaints, SUM(auto_replies)::bigint AS auto_replies,
             SUM(delayed)::bigint AS delayed, SUM(delivered)::bigint AS delivered
      FROM report_dimension_counters
      WHERE workspace_id = $1 AND {{SCOPE}}
      GROUP BY dimension, value) d
LEFT JOIN mailboxes m
       ON m.workspace_id = $1
      AND m.id = (CASE WHEN d.dimension = 'mailbox' AND d.value ~ '^[0-9]{1,18}$' THEN d.value::bigint END)
WHERE (d.sent, d.events, d.bounced, d.hard, d.soft, d.complaints, d.auto_replies, d.delayed, d.delivered)
      <> (0, 0, 0, 0, 0, 0, 0, 0, 0)
UNION ALL
SELECT 'day', to_char(x.day, 'YYYY-MM-DD'), '', '', x.sent, x.events, x.bounced, x.hard, x.soft,
       x.complaints, x.auto_replies, x.delayed, x.delivered, 0
FROM (SELECT (p.period_start AT TIME ZONE $3::text)::date AS day, SUM(p.sent)::bigint AS sent,
             SUM(p.events)::bigint AS events, SUM(p.bounced)::bigint AS bounced, SUM(p.hard)::bigint AS hard,
             SUM(p.soft)::bigint AS soft, SUM(p.complaints)::bigint AS complaints,
             SUM(p.auto_replies)::bigint AS auto_replies, SUM(p.delayed)::bigint AS delayed,
             SUM(p.delivered)::bigint AS delivered
      FROM report_period_counters p, bounds b
      -- A day's wider margin, then the exact calendar days below.
      WHERE p.workspace_id = $1 AND p.{{SCOPE}}
        AND p.period_start >= b.lo - interval '1 day' AND p.period_start < b.hi + interval '1 day'
      GROUP BY 1) x
WHERE x.day BETWEEN $4::date AND $5::date
UNION ALL
(SELECT 'burst', to_char((w.period_start + interval '15 minutes') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
        '', '', w.blocks, w.bounced, count(*) OVER (), 0, 0, 0, 0, 0, 0, 0
 FROM (SELECT s.period_start,
              (SUM(s.blocks) OVER win)::bigint AS blocks, (SUM(s.bounced) OVER win)::bigint AS bounced
       FROM (SELECT k.period_start, SUM(k.blocks) AS blocks, SUM(k.bounced) AS bounced
             FROM report_block_counters k, bounds b
             WHERE k.workspace_id = $1 AND k.{{SCOPE}}
               AND k.period_start >= b.lo AND k.period_start < b.hi
             GROUP BY 1
             HAVING SUM(k.bounced) <> 0) s
       WINDOW win AS (ORDER BY s.period_start RANGE BETWEEN interval '45 minutes' PRECEDING AND CURRENT ROW)) w
 WHERE w.blocks >= {{BURST_MIN_BLOCKS}} AND w.blocks * 100 >= w.bounced * {{BURST_MIN_SHARE_PCT}}
 ORDER BY w.blocks DESC, w.period_start
 LIMIT 1)
