-- Named queries of internal/tracking's recording transaction. Bulk inputs
-- arrive as one jsonb array of objects (jsonb_to_recordset) or as arrays, so
-- a batch costs a fixed number of round trips whatever its size.

-- name: lock-workspace
-- Serialises recording, sent registration and reprocessing within one
-- workspace for the rest of the transaction (classid 0x52425452 "RBTR",
-- objid = workspace id modulo 2^31).
SELECT pg_advisory_xact_lock(1380078674, ($1::bigint % 2147483647)::int);

-- name: lock-workspace-policy
-- lock-workspace, returning the workspace's policy overrides in the same
-- round trip (NULLs: defaults; no row: every default).
SELECT p.soft_bounce_limit, p.backoff_base_seconds, p.backoff_cap_seconds, p.stop_on_hard,
       p.suppress_on_address_invalid, p.suppress_on_complaint, p.suppress_on_any_hard
FROM (SELECT pg_advisory_xact_lock(1380078674, ($1::bigint % 2147483647)::int)) AS l
LEFT JOIN policy_settings p ON p.workspace_id = $1::bigint;

-- name: insert-raw-messages
-- Stores new messages; a message whose dedupe hash the workspace already
-- holds is skipped and not returned. $2.. are parallel arrays, one element
-- per message (binary bytea arrays avoid re-encoding the contents).
INSERT INTO raw_messages (workspace_id, dedupe_hash, content, size, mailbox_id, folder,
                          uidvalidity, uid, received_at, decode_status, decode_error, result_count)
SELECT $1::bigint, r.hash, r.content, r.size, NULLIF(r.mailbox_id, 0), r.folder,
       r.uidvalidity, r.uid, r.received_at, r.decode_status, r.decode_error, r.result_count
FROM unnest($2::bytea[], $3::bytea[], $4::int[], $5::bigint[], $6::text[], $7::bigint[], $8::bigint[],
            $9::timestamptz[], $10::text[], $11::text[], $12::int[])
     AS r(hash, content, size, mailbox_id, folder, uidvalidity, uid, received_at, decode_status,
          decode_error, result_count)
ON CONFLICT (workspace_id, dedupe_hash) DO NOTHING
RETURNING id, encode(dedupe_hash, 'hex');

-- name: find-raw-messages
SELECT id, encode(dedupe_hash, 'hex'), decode_status, decode_error
FROM raw_messages
WHERE workspace_id = $1 AND dedupe_hash = ANY ($2::bytea[]);

-- name: match-identifiers
-- Matching rules 1-3 in one round trip: what the workspace holds for the
-- identifiers found in bounces. Each row: (what, key, id, campaign_id,
-- lead_id, mailbox_id) where what is campaign_id ($2), campaign_ext ($3),
-- lead_id ($4), message_id ($5) or verp ($6).
SELECT 'campaign_id', c.id::text, c.id, c.id, 0::bigint, 0::bigint
FROM campaigns c WHERE c.workspace_id = $1::bigint AND c.id = ANY ($2::bigint[])
UNION ALL
SELECT 'campaign_ext', c.external_id, c.id, c.id, 0, 0
FROM campaigns c WHERE c.workspace_id = $1::bigint AND c.external_id = ANY ($3::text[])
UNION ALL
SELECT 'lead_id', l.id::text, l.id, l.campaign_id, l.id, 0
FROM leads l WHERE l.workspace_id = $1::bigint AND l.id = ANY ($4::bigint[])
UNION ALL
SELECT 'message_id', s.message_id, s.id, s.campaign_id, s.lead_id, COALESCE(s.mailbox_id, 0)
FROM sent_messages s WHERE s.workspace_id = $1::bigint AND s.message_id = ANY ($5::text[])
UNION ALL
SELECT 'verp', s.verp_token, s.id, s.campaign_id, s.lead_id, COALESCE(s.mailbox_id, 0)
FROM sent_messages s WHERE s.workspace_id = $1::bigint AND s.verp_token = ANY ($6::text[]);

-- name: match-campaign-leads
-- Matching rule 1 within campaigns named by a header: leads by external ID
-- ($2, $3: parallel campaign IDs and external IDs) and by address ($4, $5:
-- campaign IDs and lower-case addresses). Rows: (what, campaign_id, key,
-- lead id).
SELECT 'external', l.campaign_id, l.external_id, l.id
FROM leads l JOIN unnest($2::bigint[], $3::text[]) AS k(campaign_id, v)
  ON l.campaign_id = k.campaign_id AND l.external_id = k.v
WHERE l.workspace_id = $1::bigint
UNION ALL
SELECT 'email', l.campaign_id, l.email, l.id
FROM leads l JOIN unnest($4::bigint[], $5::text[]) AS k(campaign_id, v)
  ON l.campaign_id = k.campaign_id AND l.email = k.v
WHERE l.workspace_id = $1::bigint;

-- name: active-leads-by-email
-- Matching rule 4: per address, the active lead most recently sent to.
SELECT DISTINCT ON (email) id, campaign_id, email
FROM leads
WHERE workspace_id = $1 AND email = ANY ($2::text[]) AND status = 'active'
ORDER BY email, last_sent_at DESC NULLS LAST, id DESC;

-- name: leads-by-email-at
-- Matching rule 4 as of past times ($2, $3: parallel arrays of addresses and
-- times): per pair, the lead with that address created by then, most
-- recently sent to first, whatever its status now.
SELECT DISTINCT ON (k.email, k.at) k.email, k.at, l.id, l.campaign_id
FROM unnest($2::text[], $3::timestamptz[]) AS k(email, at)
JOIN leads l ON l.workspace_id = $1::bigint AND l.email = k.email AND l.created_at <= k.at
ORDER BY k.email, k.at, l.last_sent_at DESC NULLS LAST, l.id DESC;

-- name: latest-sends-at
-- Ties matched events to their send ($2, $3: parallel arrays of lead IDs and
-- event times): per pair, numbered by its position from 1, the lead's latest
-- send at or before that time, ties on sent_at broken by the higher ID (the
-- order SoftStreak ties an untied event in). Pairs with no such send give no
-- row. Each pair is one descent of sent_messages_lead_idx.
SELECT k.n, s.id, s.campaign_id, s.lead_id, COALESCE(s.mailbox_id, 0)
FROM unnest($2::bigint[], $3::timestamptz[]) WITH ORDINALITY AS k(lead_id, at, n)
CROSS JOIN LATERAL (
    SELECT m.id, m.campaign_id, m.lead_id, m.mailbox_id
    FROM sent_messages m
    WHERE m.workspace_id = $1::bigint AND m.lead_id = k.lead_id AND m.sent_at <= k.at
    ORDER BY m.sent_at DESC, m.id DESC
    LIMIT 1
) s;

-- name: lock-leads
SELECT id, campaign_id, email, status, consecutive_soft_bounces, retry_after, stop_reason,
       stopped_at, bounce_count, last_sent_at, last_event_at
FROM leads
WHERE workspace_id = $1 AND id = ANY ($2::bigint[])
ORDER BY id
FOR UPDATE;

-- name: insert-bounce-events
-- $2..$25: parallel arrays, one element per event (EventRow fields in
-- order); $26: updated_at.
INSERT INTO bounce_events (workspace_id, raw_message_id, result_index, kind, class, reason, label,
                           address_invalid, status, reply_code, code_entry_id, diagnostic, remote_mta,
                           reporting_mta, provider, feedback_type, format, recipient,
                           original_message_id, matched_by, campaign_id, lead_id, sent_message_id,
                           sending_mailbox_id, occurred_at, updated_at)
SELECT $1::bigint, e.raw_message_id, e.result_index, e.kind, NULLIF(e.class, ''), e.reason, e.label,
       e.address_invalid, e.status, e.reply_code, e.code_entry_id, e.diagnostic, e.remote_mta,
       e.reporting_mta, e.provider, e.feedback_type, e.format, e.recipient,
       e.original_message_id, NULLIF(e.matched_by, ''), NULLIF(e.campaign_id, 0), NULLIF(e.lead_id, 0),
       NULLIF(e.sent_message_id, 0), NULLIF(e.sending_mailbox_id, 0), e.occurred_at, $26::timestamptz
FROM unnest($2::bigint[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::boolean[],
            $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[],
            $16::text[], $17::text[], $18::text[], $19::text[], $20::text[], $21::bigint[], $22::bigint[],
            $23::bigint[], $24::bigint[], $25::timestamptz[])
     AS e(raw_message_id, result_index, kind, class, reason, label, address_invalid, status, reply_code,
          code_entry_id, diagnostic, remote_mta, reporting_mta, provider, feedback_type, format, recipient,
          original_message_id, matched_by, campaign_id, lead_id, sent_message_id, sending_mailbox_id,
          occurred_at)
ON CONFLICT (raw_message_id, result_index, occurred_at) DO NOTHING
RETURNING id, raw_message_id, result_index;

-- name: update-bounce-events
-- Reprocessing: rewrite events in place (their IDs stay stable). $2..$25 as
-- in insert-bounce-events, $26 updated_at, $27 the event IDs.
UPDATE bounce_events b
SET kind = e.kind, class = NULLIF(e.class, ''), reason = e.reason, label = e.label,
    address_invalid = e.address_invalid, status = e.status, reply_code = e.reply_code,
    code_entry_id = e.code_entry_id, diagnostic = e.diagnostic, remote_mta = e.remote_mta,
    reporting_mta = e.reporting_mta, provider = e.provider, feedback_type = e.feedback_type,
    format = e.format, recipient = e.recipient, original_message_id = e.original_message_id,
    matched_by = NULLIF(e.matched_by, ''), campaign_id = NULLIF(e.campaign_id, 0),
    lead_id = NULLIF(e.lead_id, 0), sent_message_id = NULLIF(e.sent_message_id, 0),
    sending_mailbox_id = NULLIF(e.sending_mailbox_id, 0), occurred_at = e.occurred_at,
    updated_at = $26::timestamptz
FROM unnest($27::bigint[], $2::bigint[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[],
            $8::boolean[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[],
            $15::text[], $16::text[], $17::text[], $18::text[], $19::text[], $20::text[], $21::bigint[],
            $22::bigint[], $23::bigint[], $24::bigint[], $25::timestamptz[])
     AS e(id, raw_message_id, result_index, kind, class, reason, label, address_invalid, status,
          reply_code, code_entry_id, diagnostic, remote_mta, reporting_mta, provider, feedback_type,
          format, recipient, original_message_id, matched_by, campaign_id, lead_id, sent_message_id,
          sending_mailbox_id, occurred_at)
WHERE b.workspace_id = $1::bigint AND b.id = e.id;

-- name: delete-bounce-events
DELETE FROM bounce_events WHERE workspace_id = $1 AND id = ANY ($2::bigint[]);

-- name: delete-event-activities
DELETE FROM lead_activities WHERE workspace_id = $1 AND bounce_event_id = ANY ($2::bigint[]);

-- name: delete-event-suppressions
-- Suppressions a bounce or complaint event created (manual ones stay).
DELETE FROM suppressions
WHERE workspace_id = $1 AND source_event_id = ANY ($2::bigint[]) AND source IN ('bounce', 'complaint');

-- name: write-effects
-- Everything recording decides besides the events, in one statement (one
-- round trip): timeline entries ($3..$10: lead_id, campaign_id, activity,
-- bounce_event_id, sent_message_id, summary, effect, occurred_at), lead
-- states ($11..$19: id, status, consecutive_soft_bounces, retry_after,
-- stop_reason, stopped_at, bounce_count, last_sent_at, last_event_at),
-- suppressions ($20..$23: email, reason, source, source_event_id; the first
-- reason an address was suppressed for is kept, addresses already
-- suppressed are filtered by an index probe before the conflict path) and
-- campaign deliverability signals ($24, jsonb [{campaign_id, at, label}]).
-- $1: workspace, $2: now (updated_at). Arrays are parallel per group.
WITH activities AS (
    INSERT INTO lead_activities (workspace_id, lead_id, campaign_id, activity, bounce_event_id,
                                 sent_message_id, summary, effect, occurred_at)
    SELECT $1::bigint, a.lead_id, a.campaign_id, a.activity, NULLIF(a.bounce_event_id, 0),
           NULLIF(a.sent_message_id, 0), a.summary, a.effect, a.occurred_at
    FROM unnest($3::bigint[], $4::bigint[], $5::text[], $6::bigint[], $7::bigint[], $8::text[], $9::text[],
                $10::timestamptz[])
         AS a(lead_id, campaign_id, activity, bounce_event_id, sent_message_id, summary, effect, occurred_at)
), lead_states AS (
    UPDATE leads l
    SET status = u.status, consecutive_soft_bounces = u.consecutive_soft_bounces,
        retry_after = u.retry_after, stop_reason = u.stop_reason, stopped_at = u.stopped_at,
        bounce_count = u.bounce_count, last_sent_at = u.last_sent_at, last_event_at = u.last_event_at,
        updated_at = $2::timestamptz
    FROM unnest($11::bigint[], $12::text[], $13::int[], $14::timestamptz[], $15::text[], $16::timestamptz[],
                $17::int[], $18::timestamptz[], $19::timestamptz[])
         AS u(id, status, consecutive_soft_bounces, retry_after, stop_reason, stopped_at, bounce_count,
              last_sent_at, last_event_at)
    WHERE l.workspace_id = $1::bigint AND l.id = u.id
), suppressed AS (
    INSERT INTO suppressions (workspace_id, email, reason, source, source_event_id)
    SELECT $1::bigint, s.email, s.reason, s.source, NULLIF(s.source_event_id, 0)
    FROM unnest($20::text[], $21::text[], $22::text[], $23::bigint[]) AS s(email, reason, source, source_event_id)
    WHERE NOT EXISTS (SELECT 1 FROM suppressions x WHERE x.workspace_id = $1::bigint AND x.email = s.email)
    ON CONFLICT (workspace_id, email) DO NOTHING
)
UPDATE campaigns c
SET deliverability_signal_at = s.at, deliverability_signal_label = s.label, updated_at = $2::timestamptz
FROM jsonb_to_recordset($24::jsonb) AS s(campaign_id bigint, at timestamptz, label text)
WHERE c.workspace_id = $1::bigint AND c.id = s.campaign_id
  AND (c.deliverability_signal_at IS NULL OR c.deliverability_signal_at <= s.at);

-- name: upsert-checkpoint
-- Advances a folder checkpoint: within one UIDVALIDITY the last UID only
-- grows; a new UIDVALIDITY replaces both. The workspace comes from the mailbox
-- (no row when the mailbox does not exist).
INSERT INTO mailbox_folders (workspace_id, mailbox_id, name, uidvalidity, last_uid, updated_at)
SELECT m.workspace_id, m.id, $2::text, $3::bigint, $4::bigint, $5::timestamptz
FROM mailboxes m
WHERE m.id = $1::bigint
ON CONFLICT (mailbox_id, name) DO UPDATE
SET last_uid = CASE WHEN mailbox_folders.uidvalidity = EXCLUDED.uidvalidity
                    THEN GREATEST(mailbox_folders.last_uid, EXCLUDED.last_uid)
                    ELSE EXCLUDED.last_uid END,
    uidvalidity = EXCLUDED.uidvalidity,
    updated_at = EXCLUDED.updated_at;

-- name: insert-sent-messages
INSERT INTO sent_messages (workspace_id, campaign_id, lead_id, mailbox_id, message_id, verp_token,
                           recipient, provider, sent_at)
SELECT $1::bigint, s.campaign_id, s.lead_id, NULLIF(s.mailbox_id, 0), s.message_id, NULLIF(s.verp_token, ''),
       s.recipient, s.provider, s.sent_at
FROM jsonb_to_recordset($2::jsonb) AS s(campaign_id bigint, lead_id bigint, mailbox_id bigint,
                                        message_id text, verp_token text, recipient text,
                                        provider text, sent_at timestamptz)
ON CONFLICT (workspace_id, message_id) DO NOTHING
RETURNING id, message_id;

-- name: lead-history-events
-- Every event of the given leads, in the order the policy replays them,
-- with the send each is tied to (0: none; the soft-bounce streak then ties
-- it by time).
SELECT id, lead_id, kind, COALESCE(class, ''), address_invalid, COALESCE(sent_message_id, 0), occurred_at
FROM bounce_events
WHERE workspace_id = $1 AND lead_id = ANY ($2::bigint[])
ORDER BY lead_id, occurred_at, id;

-- name: lead-history-sent
SELECT lead_id, id, sent_at
FROM sent_messages
WHERE workspace_id = $1 AND lead_id = ANY ($2::bigint[])
ORDER BY lead_id, sent_at, id;

-- name: reprocess-candidates
-- Keyset page of stored messages received at or after $1, after ($2, $3).
-- Messages whose bytes housekeeping emptied (RAW_RETENTION) cannot be
-- decoded again and are left as they are.
SELECT id, workspace_id, received_at
FROM raw_messages
WHERE received_at >= $1 AND (received_at, id) > ($2, $3) AND content_purged_at IS NULL
ORDER BY received_at, id
LIMIT $4;

-- name: lock-raw-messages
SELECT id, content, COALESCE(mailbox_id, 0), received_at, decode_status, decode_error
FROM raw_messages
WHERE workspace_id = $1 AND id = ANY ($2::bigint[])
ORDER BY id
FOR UPDATE;

-- name: events-of-raw-messages
SELECT id, raw_message_id, result_index, kind, COALESCE(class, ''), reason, label, address_invalid,
       status, reply_code, code_entry_id, diagnostic, remote_mta, reporting_mta, provider,
       feedback_type, format, recipient, original_message_id, COALESCE(matched_by, ''),
       COALESCE(campaign_id, 0), COALESCE(lead_id, 0), COALESCE(sent_message_id, 0),
       COALESCE(sending_mailbox_id, 0), occurred_at
FROM bounce_events
WHERE workspace_id = $1 AND raw_message_id = ANY ($2::bigint[])
ORDER BY raw_message_id, result_index;

-- name: update-raw-decode
UPDATE raw_messages r
SET decode_status = u.decode_status, decode_error = u.decode_error, result_count = u.result_count,
    reprocessed_at = $3
FROM jsonb_to_recordset($2::jsonb) AS u(id bigint, decode_status text, decode_error text, result_count int)
WHERE r.workspace_id = $1 AND r.id = u.id;

-- name: suppressing-events-by-recipient
-- Reprocessing: the hard bounces and complaints of the given recipients
-- ($2), except the events $3, oldest first; the caller keeps the first its
-- policy suppresses for.
SELECT id, recipient, kind, COALESCE(class, ''), reason, address_invalid
FROM bounce_events
WHERE workspace_id = $1 AND recipient = ANY ($2::text[]) AND id <> ALL ($3::bigint[])
  AND (kind = 'complaint' OR (kind = 'bounce' AND class = 'hard'))
ORDER BY recipient, occurred_at, id;
