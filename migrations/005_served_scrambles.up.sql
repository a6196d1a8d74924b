-- What /api/scrambles served to each client key, so that a generation
-- backend never gets the same state twice. States are kept by hash (a
-- swap board's text can be megabytes: too long for an index).
CREATE TABLE served_scrambles (
    client     text        NOT NULL,
    puzzle     text        NOT NULL,
    state_hash bytea       NOT NULL,  -- sha256 of the state text
    served_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (client, puzzle, state_hash)
);
