-- Burst of one campaign over [$3, $4) (in bounces.sql): a
-- qualifying window (four periods, at least {{BURST_MIN_BLOCKS}} blocks)
-- holds a period with at least a quarter of them, so only windows ending
-- within 45 minutes after such a period are evaluated (a few rows, through
-- the partial index on blocks > 0).
(SELECT 'burst', to_char((w.period_start + interval '15 minutes') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
        '', '', w.blocks, w.bounced, count(*) OVER (), 0, 0, 0, 0, 0, 0, 0
 FROM (SELECT en.period_start, s.blocks, s.bounced
       FROM (SELECT DISTINCT e.period_start
             FROM (SELECT c.period_start
                   FROM report_block_counters c
                   WHERE c.workspace_id = $1 AND c.{{SCOPE}} AND c.blocks > 0
                     AND c.period_start >= $3::timestamptz AND c.period_start < $4::timestamptz
                   GROUP BY c.period_start
                   HAVING SUM(c.blocks) >= {{BURST_CAND_MIN}}) cand
             JOIN LATERAL (SELECT e.period_start
                           FROM report_block_counters e
                           WHERE e.workspace_id = $1 AND e.{{SCOPE}} AND e.bounced <> 0
                             AND e.period_start >= cand.period_start
                             AND e.period_start <= cand.period_start + interval '45 minutes'
                             AND e.period_start < $4::timestamptz) e ON true) en
       CROSS JOIN LATERAL (SELECT SUM(k.blocks)::bigint AS blocks, SUM(k.bounced)::bigint AS bounced
                           FROM report_block_counters k
                           WHERE k.workspace_id = $1 AND k.{{SCOPE}}
                             AND k.period_start > en.period_start - interval '1 hour'
                             AND k.period_start <= en.period_start AND k.period_start >= $3::timestamptz) s) w
 WHERE w.blocks >= {{BURST_MIN_BLOCKS}} AND w.blocks * 100 >= w.bounced * {{BURST_MIN_SHARE_PCT}}
 ORDER BY w.blocks DESC, w.period_start
 LIMIT 1)
