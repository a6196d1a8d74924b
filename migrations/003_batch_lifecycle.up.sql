-- Batch lifecycle: what a producer needs to finish an interrupted enqueue,
-- and what `results batches` needs to tell running, stalled, finished and
-- cancelled batches apart.
ALTER TABLE batches
    -- Where the states came from, so `producer resume` can read them again:
    -- {"file": PATH} | {"random": N, "seed": S} | {"enumerate": true, "max": M}.
    -- NULL for batches made before version 3 (they cannot be resumed).
    ADD COLUMN source       jsonb,
    -- The jobs' options: {"mode", "max_nodes", "timeout_ms", "goal", "chunk"}.
    ADD COLUMN options      jsonb,
    -- States the server has stored as jobs: always a prefix of the batch,
    -- where a resume starts.
    ADD COLUMN enqueued     bigint      NOT NULL DEFAULT 0 CHECK (enqueued >= 0),
    -- Last progress: jobs enqueued or rows stored.
    ADD COLUMN updated_at   timestamptz,
    ADD COLUMN cancelled_at timestamptz;

-- Batches made before version 3 are taken as fully enqueued: the producer
-- did not record how far it got.
UPDATE batches SET enqueued = coalesce(total, 0);
