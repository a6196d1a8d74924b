-- Dead letters: what could not become a row of solutions, kept with the
-- reason and the original payload so a user can list it (`results dead`).
-- Rows and dead letters together account for every input state.
CREATE TABLE dead_letters (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    batch_id    bigint,              -- NULL when the payload names no batch
    seq         bigint,              -- first sequence number concerned; NULL when unknown
    job_id      text,                -- the job (Nats-Msg-Id) when known
    source      text        NOT NULL,  -- collision | results | jobs | producer
    reason      text        NOT NULL,
    payload     bytea       NOT NULL,  -- the original message, or the refused row as JSON
    key         text        NOT NULL UNIQUE,  -- makes recording a redelivered letter a no-op
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX dead_letters_batch ON dead_letters (batch_id, seq);
