-- Steering a batch: rows of a cancelled batch get a status of their own
-- (with the nodes spent until the cancel), and a batch can be paused and
-- carries the priority its jobs were enqueued with.
ALTER TABLE batches
    ADD COLUMN cancelled bigint      NOT NULL DEFAULT 0,
    -- Set by `results pause`, cleared by `results unpause`: while set, no
    -- solver starts a job of the batch (they wait in TESSERA_PARKED).
    ADD COLUMN paused_at timestamptz,
    -- The subject level its jobs were published on: high, normal or low.
    ADD COLUMN priority  text        NOT NULL DEFAULT 'normal'
                         CHECK (priority IN ('high', 'normal', 'low'));

-- done counts every status, so it is generated anew with the new counter.
ALTER TABLE batches DROP COLUMN done;
ALTER TABLE batches ADD COLUMN done bigint
    GENERATED ALWAYS AS (solved + budget_exceeded + invalid + unsolvable + failed + cancelled) STORED;

-- The new list only widens the old one, so every stored row already meets
-- it: NOT VALID skips the scan of a table that may hold 10^8 rows, and the
-- check still holds every row written from now on.
ALTER TABLE solutions DROP CONSTRAINT solutions_status_check;
ALTER TABLE solutions ADD CONSTRAINT solutions_status_check
    CHECK (status IN ('solved', 'budget_exceeded', 'invalid', 'unsolvable', 'failed', 'cancelled')) NOT VALID;
