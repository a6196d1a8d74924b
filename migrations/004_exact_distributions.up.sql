-- Exact distance distributions of whole state spaces (`solverd bfs`),
-- stored beside the sampled ones so that a sample can be compared with
-- the truth. One row per puzzle and length.
CREATE TABLE exact_distributions (
    puzzle     text        NOT NULL,
    length     integer     NOT NULL CHECK (length >= 0),
    count      bigint      NOT NULL CHECK (count > 0),
    source     text        NOT NULL,  -- e.g. "solverd bfs"
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (puzzle, length)
);
