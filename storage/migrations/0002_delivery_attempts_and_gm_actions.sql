-- 0002: delivery attempts in the outbox (a send that may have happened before a crash is
-- known, so the deliverer checks its destination before sending again), and the GM audit
-- table, filled from the command journal for games stored by schema version 1.

ALTER TABLE outbox ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE outbox ADD COLUMN last_attempt_at TEXT;
ALTER TABLE outbox ADD COLUMN last_error TEXT;

CREATE TABLE gm_actions (
    game_id    TEXT NOT NULL REFERENCES games (game_id),
    seq        INTEGER NOT NULL,
    tick       INTEGER NOT NULL,
    user_id    BIGINT,
    action     TEXT NOT NULL,
    args       TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);

CREATE INDEX gm_actions_by_user ON gm_actions (user_id, created_at);

INSERT INTO gm_actions (game_id, seq, tick, user_id, action, args, created_at)
SELECT game_id, seq, tick, user_id, kind, args, created_at
FROM commands
WHERE kind LIKE 'gm%' OR kind = 'deadline' OR (kind = 'resolve' AND user_id IS NOT NULL);
