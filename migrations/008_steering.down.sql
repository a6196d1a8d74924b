-- Cancelled rows become failed rows, as they were before version 8.
UPDATE solutions SET status = 'failed' WHERE status = 'cancelled';
ALTER TABLE solutions DROP CONSTRAINT solutions_status_check;
ALTER TABLE solutions ADD CONSTRAINT solutions_status_check
    CHECK (status IN ('solved', 'budget_exceeded', 'invalid', 'unsolvable', 'failed')) NOT VALID;
UPDATE batches SET failed = failed + cancelled;
ALTER TABLE batches DROP COLUMN done;
ALTER TABLE batches DROP COLUMN cancelled, DROP COLUMN paused_at, DROP COLUMN priority;
ALTER TABLE batches ADD COLUMN done bigint
    GENERATED ALWAYS AS (solved + budget_exceeded + invalid + unsolvable + failed) STORED;
