-- Each row keeps the delivery of the job message that produced it (1: the
-- first), so that a redelivered job (a killed solverd, a retry) stays
-- visible after the fact. A constant default makes this a catalogue change
-- only (PostgreSQL 11+): no table of 10^8 rows is rewritten, and the rows
-- stored before read as a first delivery.
ALTER TABLE solutions ADD COLUMN attempts integer NOT NULL DEFAULT 1;
