ALTER TABLE batches
    DROP COLUMN source,
    DROP COLUMN options,
    DROP COLUMN enqueued,
    DROP COLUMN updated_at,
    DROP COLUMN cancelled_at;
