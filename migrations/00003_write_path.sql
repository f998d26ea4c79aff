-- Cheaper writes on the recording path.
--   * raw_messages_workspace_idx: nothing reads raw messages by (workspace,
--     id) range; single rows are found by primary key, undecoded ones by
--     raw_messages_undecoded_idx.
--   * bounce_events_recipient_idx: no query filters events by recipient yet
--     (a later migration can add an index shaped for the query that does).
--   * leads: fillfactor 80 leaves room on each page so the policy's updates
--     (soft-bounce counter, retry_after, bounce_count, last_event_at: no
--     indexed column) stay heap-only (HOT) and touch no index.

-- +goose Up
DROP INDEX raw_messages_workspace_idx;
DROP INDEX bounce_events_recipient_idx;
ALTER TABLE leads SET (fillfactor = 80);

-- +goose Down
ALTER TABLE leads RESET (fillfactor);
CREATE INDEX bounce_events_recipient_idx ON bounce_events (workspace_id, recipient);
CREATE INDEX raw_messages_workspace_idx ON raw_messages (workspace_id, id);
