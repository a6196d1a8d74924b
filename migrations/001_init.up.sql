-- tessera schema, version 1. Column names are part of the user contract
-- (docs/ARCHITECTURE.md): users query these tables directly.

-- One batch per producer run: a corpus, a random sample or an enumeration.
CREATE TABLE batches (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    puzzle          text        NOT NULL,             -- canonical spec, e.g. sliding:4x4
    mode            text        NOT NULL,             -- optimal | fast
    total           bigint      CHECK (total >= 0),   -- states enqueued; NULL while unknown
    created_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz,                      -- set when done reaches total
    -- Progress: rows stored per status, maintained by the results writer in
    -- the transaction that inserts them.
    solved          bigint      NOT NULL DEFAULT 0,
    budget_exceeded bigint      NOT NULL DEFAULT 0,
    invalid         bigint      NOT NULL DEFAULT 0,
    unsolvable      bigint      NOT NULL DEFAULT 0,
    failed          bigint      NOT NULL DEFAULT 0,
    done            bigint      GENERATED ALWAYS AS (solved + budget_exceeded + invalid + unsolvable + failed) STORED
);

-- One row per input state. No foreign key to batches: a result must never
-- be refused (and redelivered forever) because its batch row is missing.
CREATE TABLE solutions (
    batch_id    bigint           NOT NULL,
    seq         bigint           NOT NULL,  -- position of the state in its batch, from 0
    puzzle      text             NOT NULL,
    state       text             NOT NULL,  -- state text format
    moves       text,                       -- move notation; NULL unless solved ('' for the goal)
    length      integer,                    -- number of moves; NULL unless solved
    optimal     boolean          NOT NULL DEFAULT false,  -- length proved minimal (only when solved)
    lower_bound integer          NOT NULL DEFAULT 0,
    nodes       bigint           NOT NULL DEFAULT 0,
    solve_ms    double precision NOT NULL DEFAULT 0,
    solver      text             NOT NULL DEFAULT '',
    status      text             NOT NULL
                CHECK (status IN ('solved', 'budget_exceeded', 'invalid', 'unsolvable', 'failed')),
    error       text,                       -- NULL when none
    solved_at   timestamptz      NOT NULL DEFAULT now(),
    PRIMARY KEY (batch_id, seq),
    CHECK (NOT optimal OR status = 'solved'),
    CHECK ((status = 'solved') = (length IS NOT NULL))
);

-- "Scrambles of puzzle P with optimal length L": the partial index holds
-- only proved-optimal rows, so queries must say AND optimal.
CREATE INDEX solutions_puzzle_optimal_length ON solutions (puzzle, length) WHERE optimal;

-- Distribution of optimal solution lengths per puzzle and batch, kept up to
-- date from the rows actually inserted (never from redeliveries).
CREATE TABLE distance_counts (
    puzzle   text    NOT NULL,
    batch_id bigint  NOT NULL,
    length   integer NOT NULL CHECK (length >= 0),
    count    bigint  NOT NULL CHECK (count >= 0),
    PRIMARY KEY (puzzle, batch_id, length)
);
