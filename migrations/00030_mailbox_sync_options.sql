-- +goose Up
-- Mailbox settings that only the sync reads: the forced SASL mechanism, the
-- OAuth2 client (client id, token URL, scopes; the client secret and refresh
-- token stay in secret_sealed) and the first-sync look-back window. Kept as
-- one JSON document (internal/mailbox.Settings, its non-connection fields)
-- so new sync options need no further column.
ALTER TABLE mailboxes ADD COLUMN sync_options jsonb NOT NULL DEFAULT '{}'::jsonb;
-- When the running sync started (NULL when none runs); with the advisory
-- lock this tells a stuck sync from a running one in the API.
ALTER TABLE mailboxes ADD COLUMN sync_started_at timestamptz;

-- +goose Down
ALTER TABLE mailboxes DROP COLUMN sync_started_at;
ALTER TABLE mailboxes DROP COLUMN sync_options;
