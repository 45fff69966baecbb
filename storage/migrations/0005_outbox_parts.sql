-- 0005: exactly-once delivery by message part. A batch of outbox rows for one channel is
-- rendered ONCE into its final Discord messages (parts); the parts are stored here in the
-- transaction that claims the rows (outbox.batch_id), then each part is sent and marked on
-- its own (sent_at, message_id). A retry re-sends the stored text of unsent parts only. The
-- bot's own messages (role cards, reminders, GM log lines, the reveal…) are batches without
-- outbox rows, keyed by the caller. games.resolving_user keeps the GM of a forced resolve
-- cut short, so that its redo is forced by the same GM.

ALTER TABLE outbox ADD COLUMN batch_id TEXT;

ALTER TABLE games ADD COLUMN resolving_user BIGINT;

CREATE TABLE outbox_parts (
    batch_id     TEXT NOT NULL,
    part_idx     INTEGER NOT NULL,
    batch_ord    INTEGER NOT NULL,
    game_id      TEXT NOT NULL,
    channel_key  TEXT NOT NULL,
    channel_id   BIGINT,
    content      TEXT NOT NULL,
    nonce        TEXT NOT NULL,
    mention      BIGINT,
    view         TEXT,
    files        TEXT,
    created_at   TEXT NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_attempt_at TEXT,
    last_error   TEXT,
    sent_at      TEXT,
    message_id   BIGINT,
    PRIMARY KEY (batch_id, part_idx)
);

CREATE INDEX outbox_parts_pending ON outbox_parts (sent_at, batch_ord, part_idx);

CREATE INDEX outbox_by_batch ON outbox (batch_id);
