-- 0006: exclusive claims of message parts. Several bot processes may share one database
-- (PostgreSQL, shards): a process sends a part only while it holds the part's claim (its
-- owner id, until an expiry); a claim that expired (its process died mid-send) may be taken
-- by another, which then looks in the channel before sending (attempts > 0).

ALTER TABLE outbox_parts ADD COLUMN claim_owner TEXT;

ALTER TABLE outbox_parts ADD COLUMN claim_until TEXT;
