-- Lighter writes on the two tables every recorded result inserts into.
--
-- bounce_events: the dedupe key becomes (raw_message_id, result_index). A raw
-- message is itself unique per (workspace, dedupe hash) and belongs to one
-- workspace, so this is the same key as (workspace, content hash, result
-- index), and its index now also serves the ON DELETE CASCADE from
-- raw_messages (bounce_events_raw_idx goes). The workspace foreign key is
-- implied by raw_message_id's (same workspace, cascading) and goes too.
--
-- bounce_events_matched goes: deleting a campaign sets campaign_id NULL (ON
-- DELETE SET NULL) while matched_by keeps saying how the event had matched.
--
-- lead_activities: workspace and campaign are implied by lead_id (cascading),
-- so their foreign keys go; the columns and indexes stay.

-- +goose Up
ALTER TABLE bounce_events DROP CONSTRAINT bounce_events_dedupe_key;
ALTER TABLE bounce_events ADD CONSTRAINT bounce_events_dedupe_key UNIQUE (raw_message_id, result_index);
DROP INDEX bounce_events_raw_idx;
ALTER TABLE bounce_events DROP CONSTRAINT bounce_events_workspace_id_fkey;
ALTER TABLE bounce_events DROP CONSTRAINT bounce_events_matched;
ALTER TABLE lead_activities DROP CONSTRAINT lead_activities_workspace_id_fkey;
ALTER TABLE lead_activities DROP CONSTRAINT lead_activities_campaign_id_fkey;

-- +goose Down
ALTER TABLE lead_activities ADD CONSTRAINT lead_activities_campaign_id_fkey
    FOREIGN KEY (campaign_id) REFERENCES campaigns (id) ON DELETE CASCADE;
ALTER TABLE lead_activities ADD CONSTRAINT lead_activities_workspace_id_fkey
    FOREIGN KEY (workspace_id) REFERENCES workspaces (id) ON DELETE CASCADE;
ALTER TABLE bounce_events ADD CONSTRAINT bounce_events_matched
    CHECK ((campaign_id IS NULL) = (matched_by IS NULL)) NOT VALID;
ALTER TABLE bounce_events ADD CONSTRAINT bounce_events_workspace_id_fkey
    FOREIGN KEY (workspace_id) REFERENCES workspaces (id) ON DELETE CASCADE;
CREATE INDEX bounce_events_raw_idx ON bounce_events (raw_message_id);
ALTER TABLE bounce_events DROP CONSTRAINT bounce_events_dedupe_key;
ALTER TABLE bounce_events ADD CONSTRAINT bounce_events_dedupe_key UNIQUE (workspace_id, raw_message_id, result_index);
