-- How many states each client key has been served: the per-key
-- cap of served-state tracking is checked against this counter, kept in the
-- transaction that records the states, so it never counts served_scrambles.
-- Keys recorded before this version are counted once here.
CREATE TABLE served_clients (
    client text   PRIMARY KEY,
    served bigint NOT NULL DEFAULT 0 CHECK (served >= 0)
);
INSERT INTO served_clients (client, served)
SELECT client, count(*) FROM served_scrambles GROUP BY client;
