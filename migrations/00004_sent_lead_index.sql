-- sent_messages_lead_idx gains id DESC, so "a lead's latest send at or
-- before a time, the higher ID first among sends at the same instant"
-- (store query latest-sends-at, which ties lead-matched bounces to their
-- send) is one index descent reading one entry, with no sort of the lead's
-- sends; lead-history-sent (sent_at, id ascending) reads it backwards. It
-- replaces the index rather than adding one, so sends cost no extra write.

-- +goose Up
DROP INDEX sent_messages_lead_idx;
CREATE INDEX sent_messages_lead_idx ON sent_messages (workspace_id, lead_id, sent_at DESC, id DESC);

-- +goose Down
DROP INDEX sent_messages_lead_idx;
CREATE INDEX sent_messages_lead_idx ON sent_messages (workspace_id, lead_id, sent_at DESC);
