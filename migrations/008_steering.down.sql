-- Stand-in: take main's 008 when merging.
SELECT 1;
