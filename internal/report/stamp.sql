-- The stamp of a report: what a report kept in memory must still match to
-- be served again (report.Service's cache). One row of the report shape:
-- k1 the campaign's name, k2 an MD5 over the workspace's mailbox IDs and
-- names (the mailbox rows show names), n0 the version (migrations/00041; for
-- the workspace, the sum over its campaigns), n1 1 when the campaign is one
-- of the workspace's (always 1 for the workspace report). $1 workspace, $2
-- campaign (NULL for all), as in bounces.sql; {{SCOPE}} likewise.
SELECT 'stamp' AS section,
       COALESCE((SELECT c.name FROM campaigns c WHERE c.workspace_id = $1 AND c.id = $2::bigint), '') AS k1,
       (SELECT md5(COALESCE(string_agg(m.id || ':' || m.name, ',' ORDER BY m.id), ''))
        FROM mailboxes m WHERE m.workspace_id = $1) AS k2,
       '' AS k3,
       (SELECT COALESCE(SUM(version), 0)::bigint FROM report_versions WHERE workspace_id = $1 AND {{SCOPE}}) AS n0,
       (CASE WHEN $2::bigint IS NULL OR EXISTS (SELECT 1 FROM campaigns c WHERE c.workspace_id = $1 AND c.id = $2::bigint)
             THEN 1 ELSE 0 END)::bigint AS n1,
       0::bigint AS n2, 0::bigint AS n3, 0::bigint AS n4, 0::bigint AS n5, 0::bigint AS n6, 0::bigint AS n7,
       0::bigint AS n8, 0::bigint AS n9
