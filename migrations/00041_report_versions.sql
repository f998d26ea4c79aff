-- Reports (issue 9): a version per campaign (0: unmatched) that grows in the
-- same transaction as every change to that campaign's report figures, so
-- internal/report can keep computed reports in memory and serve one again
-- only while its campaign's version is unchanged (exact, never stale).
--
-- Every report figure derives from bounce_events and sent_messages (the
-- counters are kept from them in the recording transaction), so statement
-- triggers on those two tables bump the version of each campaign a
-- statement touches (old and new campaign of an updated row): recording,
-- reprocessing, registering sends, deleting a campaign (its sends cascade,
-- its events are set unmatched). The workspace report's version is the sum
-- over the workspace's rows. Each statement bumps its campaigns in key order.

-- +goose Up
CREATE TABLE report_versions (
    workspace_id  bigint NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    campaign_id   bigint NOT NULL,
    version       bigint NOT NULL DEFAULT 1,
    PRIMARY KEY (workspace_id, campaign_id)
);

-- +goose StatementBegin
CREATE FUNCTION report_versions_bump() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO report_versions AS v (workspace_id, campaign_id)
        SELECT DISTINCT n.workspace_id, COALESCE(n.campaign_id, 0) FROM new_rows n ORDER BY 1, 2
        ON CONFLICT (workspace_id, campaign_id) DO UPDATE SET version = v.version + 1;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO report_versions AS v (workspace_id, campaign_id)
        SELECT DISTINCT o.workspace_id, COALESCE(o.campaign_id, 0) FROM old_rows o ORDER BY 1, 2
        ON CONFLICT (workspace_id, campaign_id) DO UPDATE SET version = v.version + 1;
    ELSE
        INSERT INTO report_versions AS v (workspace_id, campaign_id)
        SELECT DISTINCT x.workspace_id, x.campaign_id FROM (
            SELECT n.workspace_id, COALESCE(n.campaign_id, 0) AS campaign_id FROM new_rows n
            UNION ALL
            SELECT o.workspace_id, COALESCE(o.campaign_id, 0) FROM old_rows o) x
        ORDER BY 1, 2
        ON CONFLICT (workspace_id, campaign_id) DO UPDATE SET version = v.version + 1;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER report_versions_events_insert AFTER INSERT ON bounce_events
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION report_versions_bump();
CREATE TRIGGER report_versions_events_update AFTER UPDATE ON bounce_events
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION report_versions_bump();
CREATE TRIGGER report_versions_events_delete AFTER DELETE ON bounce_events
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION report_versions_bump();
CREATE TRIGGER report_versions_sent_insert AFTER INSERT ON sent_messages
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION report_versions_bump();
CREATE TRIGGER report_versions_sent_update AFTER UPDATE ON sent_messages
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION report_versions_bump();
CREATE TRIGGER report_versions_sent_delete AFTER DELETE ON sent_messages
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION report_versions_bump();

INSERT INTO report_versions (workspace_id, campaign_id)
SELECT workspace_id, campaign_id FROM report_campaign_counters
ON CONFLICT DO NOTHING;

-- +goose Down
DROP TRIGGER IF EXISTS report_versions_sent_delete ON sent_messages;
DROP TRIGGER IF EXISTS report_versions_sent_update ON sent_messages;
DROP TRIGGER IF EXISTS report_versions_sent_insert ON sent_messages;
DROP TRIGGER IF EXISTS report_versions_events_delete ON bounce_events;
DROP TRIGGER IF EXISTS report_versions_events_update ON bounce_events;
DROP TRIGGER IF EXISTS report_versions_events_insert ON bounce_events;
DROP FUNCTION IF EXISTS report_versions_bump();
DROP TABLE IF EXISTS report_versions;
