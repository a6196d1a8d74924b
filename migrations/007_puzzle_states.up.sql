-- Per-puzzle distributions and scrambles-by-length that do not grow with the
-- rows stored: both count DISTINCT states, a state solved in
-- several batches once, which made every request sort every optimal row of
-- the puzzle (12 s at 10 M rows).
--
-- puzzle_states holds one row per distinct state of a puzzle with a proved
-- optimal row: its least optimal length and, among its rows of that length,
-- the first by (batch_id, seq), the row /api/scrambles serves for it. The
-- writer keeps it in the transaction that stores the rows, as the minimum
-- over (length, batch_id, seq): a redelivery changes nothing, and so does a
-- requeue's replacement (a replaced optimal row only ever gets shorter, so
-- the minimum is still right). States are kept by hash: a swap board's text
-- can be megabytes, too long for an index.
CREATE TABLE puzzle_states (
    puzzle     text    NOT NULL,
    state_hash bytea   NOT NULL,  -- sha256 of the state text, as served_scrambles
    length     integer NOT NULL CHECK (length >= 0),
    batch_id   bigint  NOT NULL,
    seq        bigint  NOT NULL,
    PRIMARY KEY (puzzle, state_hash)
);

-- "N states of puzzle P with optimal length L, oldest first, after a cursor".
CREATE INDEX puzzle_states_length ON puzzle_states (puzzle, length, batch_id, seq);

-- How many rows of puzzle_states each (puzzle, length) has, kept with it.
-- No CHECK (count >= 0): the writer moves counts down with an upsert of a
-- negative delta, which a CHECK would refuse before finding the row.
CREATE TABLE puzzle_counts (
    puzzle text    NOT NULL,
    length integer NOT NULL CHECK (length >= 0),
    count  bigint  NOT NULL,
    PRIMARY KEY (puzzle, length)
);

-- Backfill from the rows stored before this version.
INSERT INTO puzzle_states (puzzle, state_hash, length, batch_id, seq)
SELECT DISTINCT ON (puzzle, h) puzzle, h, length, batch_id, seq
FROM (SELECT puzzle, sha256(convert_to(state, 'UTF8')) AS h, length, batch_id, seq
      FROM solutions WHERE optimal) AS s
ORDER BY puzzle, h, length, batch_id, seq;

INSERT INTO puzzle_counts (puzzle, length, count)
SELECT puzzle, length, count(*) FROM puzzle_states GROUP BY puzzle, length;
