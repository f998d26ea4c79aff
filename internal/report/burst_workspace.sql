-- Burst of the workspace over [$3, $4) (in bounces.sql): blocks
-- summed over campaigns per period (through the index on workspace and
-- period), then each window of four periods ending at a period holding a
-- bounce. Across many campaigns most periods hold blocks, so this reads
-- them all rather than searching for candidates.
(SELECT 'burst', to_char((w.period_start + interval '15 minutes') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
        '', '', w.blocks, w.bounced, count(*) OVER (), 0, 0, 0, 0, 0, 0, 0
 FROM (SELECT s.period_start,
              (SUM(s.blocks) OVER win)::bigint AS blocks, (SUM(s.bounced) OVER win)::bigint AS bounced
       FROM (SELECT k.period_start, SUM(k.blocks) AS blocks, SUM(k.bounced) AS bounced
             FROM report_block_counters k
             WHERE k.workspace_id = $1 AND k.{{SCOPE}}
               AND k.period_start >= $3::timestamptz AND k.period_start < $4::timestamptz
             GROUP BY 1
             HAVING SUM(k.bounced) <> 0) s
       WINDOW win AS (ORDER BY s.period_start RANGE BETWEEN interval '45 minutes' PRECEDING AND CURRENT ROW)) w
 WHERE w.blocks >= {{BURST_MIN_BLOCKS}} AND w.blocks * 100 >= w.bounced * {{BURST_MIN_SHARE_PCT}}
 ORDER BY w.blocks DESC, w.period_start
 LIMIT 1)
