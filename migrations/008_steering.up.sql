-- Stand-in for the steering migration, which the main branch holds: take
-- main's 008 when merging.
SELECT 1;
