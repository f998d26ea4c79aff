-- Running past one machine (issue 11): bounce_events and lead_activities
-- partitioned by month of occurred_at (UTC), and raw message retention.
--
-- Partitions
--   * Each table becomes PARTITION BY RANGE (occurred_at) with one partition
--     per UTC month, <table>_pYYYY_MM, and a default partition
--     <table>_default for rows outside every month partition (old
--     INTERNALDATEs, clocks far ahead). The existing rows are moved; months of
--     the last 24 months that hold rows get their own partition, older rows
--     stay in the default one.
--   * rebound_ensure_month_partition(parent, at) creates the month partition
--     holding `at` when missing (moving its rows out of the default partition
--     first). The worker's housekeeping calls it every hour for this month
--     and the next three (internal/tasks), so the default partition stays
--     small.
--   * A unique constraint on a partitioned table must include the partition
--     key, so the primary keys become (id, occurred_at) and the event dedupe
--     key becomes (raw_message_id, result_index, occurred_at). That is the
--     same key as before: an event's occurred_at is its raw message's
--     received_at (internal/tracking), fixed per raw_message_id. Writers
--     name the new key in ON CONFLICT, or use ON CONFLICT DO NOTHING.
--   * Other tables cannot reference a partitioned table by id alone, so the
--     foreign keys lead_activities.bounce_event_id (ON DELETE CASCADE) and
--     suppressions.source_event_id (ON DELETE SET NULL) become one
--     statement-level trigger on bounce_events doing the same on delete.
--     Nothing checks on insert that those ids exist; tracking writes them in
--     the transaction that writes the event.
--   * Secondary indexes, check constraints, outgoing foreign keys and
--     statement triggers (report_block_counters) are carried over as they
--     are, whatever earlier migrations defined; identity sequences continue.
--   * The rows are copied in the migration's transaction, which holds both
--     tables exclusively meanwhile: on a large installation apply it in a
--     maintenance window with the workers stopped (the API's reads wait).
--
-- Retention
--   raw_messages.content_purged_at: when housekeeping replaced the stored
--   bytes of a message older than RAW_RETENTION by an empty value (the
--   message's row, hash and events stay). The partial index finds the
--   messages still holding bytes, oldest first.

-- +goose Up

-- +goose StatementBegin
CREATE FUNCTION rebound_ensure_month_partition(parent regclass, at timestamptz) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    base  text := (SELECT c.relname FROM pg_class c WHERE c.oid = parent);
    nsp   text := (SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = parent);
    keycol text;
    lo    timestamp := date_trunc('month', at AT TIME ZONE 'UTC');
    part  text;
    def   text;
BEGIN
    SELECT a.attname INTO keycol
    FROM pg_partitioned_table p JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
    WHERE p.partrelid = parent AND p.partnatts = 1;
    IF keycol IS NULL THEN
        RAISE EXCEPTION 'rebound_ensure_month_partition: % is not partitioned by one column', parent;
    END IF;
    part := base || '_p' || to_char(lo, 'YYYY_MM');
    -- One creator at a time per table (several workers run housekeeping).
    PERFORM pg_advisory_xact_lock(1380078675, parent::oid::int);
    IF to_regclass(quote_ident(nsp) || '.' || quote_ident(part)) IS NOT NULL THEN
        RETURN false;
    END IF;
    EXECUTE format('CREATE TABLE %I.%I (LIKE %I.%I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)',
                   nsp, part, nsp, base);
    -- Rows of that month that landed in the default partition move first;
    -- statements on a partition fire none of the parent's statement
    -- triggers, so counters and references are untouched.
    SELECT c.relname INTO def
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = parent AND pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT';
    IF def IS NOT NULL THEN
        -- No insert may slip into the default partition between the move
        -- and the attach (which would then fail); give up after 5s when a
        -- long transaction holds it (the next hour's run tries again).
        PERFORM set_config('lock_timeout', '5s', true);
        EXECUTE format('LOCK TABLE %I.%I IN ACCESS EXCLUSIVE MODE', nsp, def);
        EXECUTE format('WITH moved AS (DELETE FROM %I.%I WHERE %I >= $1 AND %I < $2 RETURNING *) '
                       'INSERT INTO %I.%I SELECT * FROM moved', nsp, def, keycol, keycol, nsp, part)
            USING lo AT TIME ZONE 'UTC', (lo + interval '1 month') AT TIME ZONE 'UTC';
    END IF;
    -- ATTACH locks the parent in SHARE UPDATE EXCLUSIVE mode only: reads and
    -- writes go on meanwhile.
    EXECUTE format('ALTER TABLE %I.%I ATTACH PARTITION %I.%I FOR VALUES FROM (%L) TO (%L)',
                   nsp, base, nsp, part, lo AT TIME ZONE 'UTC', (lo + interval '1 month') AT TIME ZONE 'UTC');
    RETURN true;
END
$$;
-- +goose StatementEnd

COMMENT ON FUNCTION rebound_ensure_month_partition(regclass, timestamptz) IS
    'Creates the month partition (UTC) of a table partitioned by month that holds at, when missing; returns whether it did.';

-- partition_by_month turns tbl into a table partitioned by month of col,
-- keeping its rows, columns, identity, checks, indexes, outgoing foreign keys
-- and triggers. Primary and unique keys get col appended. Inbound foreign
-- keys must have been dropped by the caller.
-- +goose StatementBegin
CREATE FUNCTION pg_temp.partition_by_month(tbl text, col text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    old  text := tbl || '_unpartitioned';
    nsp  text := current_schema();
    r    record;
    stmts text[] := '{}';
    cols text;
    lo   timestamp;
    hi   timestamp;
    m    timestamp;
    next_id bigint;
    seq  text;
BEGIN
    EXECUTE format('ALTER TABLE %I RENAME TO %I', tbl, old);
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING IDENTITY '
                   'INCLUDING GENERATED INCLUDING STORAGE INCLUDING COMMENTS INCLUDING STATISTICS) '
                   'PARTITION BY RANGE (%I)', tbl, old, col);
    EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT', tbl || '_default', tbl);
    EXECUTE format('SELECT date_trunc(''month'', min(%I) AT TIME ZONE ''UTC''), '
                   'date_trunc(''month'', max(%I) AT TIME ZONE ''UTC'') FROM %I', col, col, old) INTO lo, hi;
    lo := greatest(coalesce(lo, 'infinity'), date_trunc('month', now() AT TIME ZONE 'UTC') - interval '24 months');
    hi := greatest(coalesce(hi, '-infinity'), date_trunc('month', now() AT TIME ZONE 'UTC') + interval '3 months');
    m := least(lo, date_trunc('month', now() AT TIME ZONE 'UTC'));
    WHILE m <= hi LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
                       tbl || '_p' || to_char(m, 'YYYY_MM'), tbl, m AT TIME ZONE 'UTC',
                       (m + interval '1 month') AT TIME ZONE 'UTC');
        m := m + interval '1 month';
    END LOOP;

    -- Keys (partition column appended), then outgoing foreign keys.
    FOR r IN SELECT c.conname, c.contype, c.conkey, pg_get_constraintdef(c.oid) AS def
             FROM pg_constraint c WHERE c.conrelid = old::regclass AND c.contype IN ('p', 'u', 'f')
             ORDER BY c.contype DESC, c.conname LOOP
        IF r.contype = 'f' THEN
            stmts := stmts || format('ALTER TABLE %I ADD CONSTRAINT %I %s', tbl, r.conname, r.def);
        ELSE
            SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY k.ord) INTO cols
            FROM unnest(r.conkey) WITH ORDINALITY AS k(attnum, ord)
            JOIN pg_attribute a ON a.attrelid = old::regclass AND a.attnum = k.attnum;
            IF NOT EXISTS (SELECT 1 FROM unnest(r.conkey) k(attnum) JOIN pg_attribute a
                           ON a.attrelid = old::regclass AND a.attnum = k.attnum WHERE a.attname = col) THEN
                cols := cols || ', ' || quote_ident(col);
            END IF;
            stmts := stmts || format('ALTER TABLE %I ADD CONSTRAINT %I %s (%s)', tbl, r.conname,
                                     CASE r.contype WHEN 'p' THEN 'PRIMARY KEY' ELSE 'UNIQUE' END, cols);
        END IF;
    END LOOP;
    -- Secondary indexes (those not behind a constraint).
    FOR r IN SELECT i.indexrelid, i.indisunique, pg_get_indexdef(i.indexrelid) AS def
             FROM pg_index i WHERE i.indrelid = old::regclass
               AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
             ORDER BY i.indexrelid LOOP
        IF r.indisunique THEN
            RAISE EXCEPTION 'partition_by_month: unique index % on % needs the partition key', r.indexrelid::regclass, old;
        END IF;
        stmts := stmts || regexp_replace(r.def, ' ON \S+ USING ', format(' ON %I.%I USING ', nsp, tbl));
    END LOOP;
    -- User triggers.
    FOR r IN SELECT pg_get_triggerdef(t.oid) AS def FROM pg_trigger t
             WHERE t.tgrelid = old::regclass AND NOT t.tgisinternal ORDER BY t.tgname LOOP
        stmts := stmts || replace(r.def, format(' ON %I.%I ', nsp, old), format(' ON %I.%I ', nsp, tbl));
    END LOOP;

    -- Rows move before the triggers exist (counters already hold them).
    EXECUTE format('INSERT INTO %I OVERRIDING SYSTEM VALUE SELECT * FROM %I', tbl, old);
    seq := pg_get_serial_sequence(old, 'id');
    EXECUTE format('SELECT greatest((SELECT max(id) FROM %I), (SELECT CASE WHEN is_called THEN last_value END FROM %s), 0) + 1',
                   tbl, seq) INTO next_id;
    EXECUTE format('DROP TABLE %I', old);
    FOREACH cols IN ARRAY stmts LOOP
        EXECUTE cols;
    END LOOP;
    EXECUTE format('ALTER TABLE %I ALTER COLUMN id RESTART WITH %s', tbl, next_id);
END
$$;
-- +goose StatementEnd

-- Inbound references to bounce_events(id): only these two are known here.
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_constraint WHERE confrelid = 'bounce_events'::regclass AND contype = 'f'
               AND conname NOT IN ('lead_activities_bounce_event_id_fkey', 'suppressions_source_event_id_fkey')) THEN
        RAISE EXCEPTION '00050: a foreign key references bounce_events that this migration does not replace';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_constraint WHERE confrelid = 'lead_activities'::regclass AND contype = 'f') THEN
        RAISE EXCEPTION '00050: a foreign key references lead_activities';
    END IF;
END
$$;
-- +goose StatementEnd
ALTER TABLE lead_activities DROP CONSTRAINT IF EXISTS lead_activities_bounce_event_id_fkey;
ALTER TABLE suppressions DROP CONSTRAINT IF EXISTS suppressions_source_event_id_fkey;

SELECT pg_temp.partition_by_month('bounce_events', 'occurred_at');
SELECT pg_temp.partition_by_month('lead_activities', 'occurred_at');
DROP FUNCTION pg_temp.partition_by_month(text, text);

-- What the two foreign keys did on delete of an event.
-- +goose StatementBegin
CREATE FUNCTION bounce_events_delete_references() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM lead_activities a USING old_rows o
    WHERE a.bounce_event_id = o.id AND a.bounce_event_id IS NOT NULL;
    UPDATE suppressions s SET source_event_id = NULL
    FROM old_rows o WHERE s.source_event_id = o.id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER bounce_events_delete_references AFTER DELETE ON bounce_events
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION bounce_events_delete_references();

ALTER TABLE raw_messages ADD COLUMN content_purged_at timestamptz;
CREATE INDEX raw_messages_retention_idx ON raw_messages (received_at) WHERE content_purged_at IS NULL;

-- +goose Down

DROP INDEX IF EXISTS raw_messages_retention_idx;
ALTER TABLE raw_messages DROP COLUMN IF EXISTS content_purged_at;
DROP TRIGGER IF EXISTS bounce_events_delete_references ON bounce_events;
DROP FUNCTION IF EXISTS bounce_events_delete_references();

-- unpartition turns tbl back into a plain table: keys lose col again (Up
-- appended it), everything else is carried over as in Up.
-- +goose StatementBegin
CREATE FUNCTION pg_temp.unpartition(tbl text, col text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    old  text := tbl || '_partitioned';
    nsp  text := current_schema();
    r    record;
    stmts text[] := '{}';
    cols text;
    next_id bigint;
    seq  text;
BEGIN
    EXECUTE format('ALTER TABLE %I RENAME TO %I', tbl, old);
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING IDENTITY '
                   'INCLUDING GENERATED INCLUDING STORAGE INCLUDING COMMENTS INCLUDING STATISTICS)', tbl, old);
    FOR r IN SELECT c.conname, c.contype, c.conkey, pg_get_constraintdef(c.oid) AS def
             FROM pg_constraint c WHERE c.conrelid = old::regclass AND c.contype IN ('p', 'u', 'f')
               AND c.conparentid = 0
             ORDER BY c.contype DESC, c.conname LOOP
        IF r.contype = 'f' THEN
            stmts := stmts || format('ALTER TABLE %I ADD CONSTRAINT %I %s', tbl, r.conname, r.def);
        ELSE
            SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY k.ord) INTO cols
            FROM unnest(r.conkey) WITH ORDINALITY AS k(attnum, ord)
            JOIN pg_attribute a ON a.attrelid = old::regclass AND a.attnum = k.attnum
            WHERE a.attname <> col;
            stmts := stmts || format('ALTER TABLE %I ADD CONSTRAINT %I %s (%s)', tbl, r.conname,
                                     CASE r.contype WHEN 'p' THEN 'PRIMARY KEY' ELSE 'UNIQUE' END, cols);
        END IF;
    END LOOP;
    FOR r IN SELECT pg_get_indexdef(i.indexrelid) AS def
             FROM pg_index i WHERE i.indrelid = old::regclass
               AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
             ORDER BY i.indexrelid LOOP
        stmts := stmts || regexp_replace(r.def, ' ON (ONLY )?\S+ USING ', format(' ON %I.%I USING ', nsp, tbl));
    END LOOP;
    FOR r IN SELECT pg_get_triggerdef(t.oid) AS def FROM pg_trigger t
             WHERE t.tgrelid = old::regclass AND NOT t.tgisinternal AND t.tgparentid = 0 ORDER BY t.tgname LOOP
        stmts := stmts || replace(r.def, format(' ON %I.%I ', nsp, old), format(' ON %I.%I ', nsp, tbl));
    END LOOP;
    EXECUTE format('INSERT INTO %I OVERRIDING SYSTEM VALUE SELECT * FROM %I', tbl, old);
    seq := pg_get_serial_sequence(old, 'id');
    EXECUTE format('SELECT greatest((SELECT max(id) FROM %I), (SELECT CASE WHEN is_called THEN last_value END FROM %s), 0) + 1',
                   tbl, seq) INTO next_id;
    EXECUTE format('DROP TABLE %I', old);
    FOREACH cols IN ARRAY stmts LOOP
        EXECUTE cols;
    END LOOP;
    EXECUTE format('ALTER TABLE %I ALTER COLUMN id RESTART WITH %s', tbl, next_id);
END
$$;
-- +goose StatementEnd

SELECT pg_temp.unpartition('lead_activities', 'occurred_at');
SELECT pg_temp.unpartition('bounce_events', 'occurred_at');
DROP FUNCTION pg_temp.unpartition(text, text);
ALTER TABLE suppressions ADD CONSTRAINT suppressions_source_event_id_fkey
    FOREIGN KEY (source_event_id) REFERENCES bounce_events (id) ON DELETE SET NULL;
ALTER TABLE lead_activities ADD CONSTRAINT lead_activities_bounce_event_id_fkey
    FOREIGN KEY (bounce_event_id) REFERENCES bounce_events (id) ON DELETE CASCADE;
DROP FUNCTION IF EXISTS rebound_ensure_month_partition(regclass, timestamptz);
