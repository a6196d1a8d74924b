package main

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/policy"
	"github.com/tessera-solver/tessera/internal/progress"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
)

type usageError = cmdkit.UsageError

func usagef(format string, a ...any) error { return cmdkit.Usagef(format, a...) }

// flags are the producer's own flags; the rest are producerKeys.
type flags struct {
	puzzle    string
	file      string
	random    int64
	seed      uint64
	enumerate bool
	local     bool
	wait      bool
	strict    bool
	maxStates int64
	quiet     bool
	goal      string
	split     bool
	// --target-length generation
	targetLength int
	count        int
	method       string
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f flags
	c := &cobra.Command{
		Use:   "producer --puzzle P (--file PATH | --random N [--seed S] | --enumerate | --target-length L --count N) [--mode M] [--local] [--wait] [--strict]",
		Short: "Enqueue puzzle states as a batch: solverd solves them, results stores the answers in PostgreSQL",
		Long: `producer creates a batch in PostgreSQL and publishes its states as jobs on
NATS JetStream. It prints "batch ID" on stdout. With --wait it follows the
batch to completion and prints its distance histogram, one "length count"
line per optimal length. With --local it runs the whole pipeline in this
process (an in-process nats-server, the solver workers and the results
writer) and waits.

A --file holds one state per line; blank lines and '#' comments are
skipped. Lines that are not solvable states are reported on stderr with
their line number and recorded as invalid (or unsolvable) rows; --strict
aborts before anything is enqueued instead.`,
		Args: cobra.NoArgs,
	}
	fs := c.Flags()
	fs.StringVarP(&f.puzzle, "puzzle", "p", "", "puzzle: KIND:ROWSxCOLS (sliding:4x4, loopover:5x5, swap:12x12) or 8, 15, 24")
	fs.StringVar(&f.file, "file", "", "read states from PATH, one per line ('-' for stdin)")
	fs.Int64Var(&f.random, "random", 0, "enqueue N uniformly random solvable states")
	fs.Uint64Var(&f.seed, "seed", 0, "random seed for --random (default: a random one, printed on stderr)")
	fs.BoolVar(&f.enumerate, "enumerate", false, "enqueue every state of the puzzle (small puzzles only)")
	fs.BoolVar(&f.local, "local", false, "run the whole pipeline in this process (in-process NATS, solvers, results writer); implies --wait")
	fs.BoolVar(&f.wait, "wait", false, "follow the batch to completion and print its distance histogram")
	fs.BoolVar(&f.strict, "strict", false, "abort, enqueueing nothing, if any line of --file is not a solvable state")
	fs.Int64Var(&f.maxStates, "max-states", 20_000_000, "refuse --enumerate beyond this many arrangements")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "no progress bars")
	fs.BoolVar(&f.split, "split", false, "optimal mode: solve each state as a split search, its IDA* iterations cut into subtree jobs that every solverd shares (for a few very hard states)")
	fs.StringVar(&f.goal, "goal", "", "swap boards only: target 0/1 pattern for every state (default: the ones first, row-major)")
	fs.IntVar(&f.targetLength, "target-length", -1, "generate: keep enqueuing candidates until --count distinct states of exactly this optimal length are stored, then print them (JSON lines)")
	fs.IntVar(&f.count, "count", 0, "generate: how many distinct states of --target-length")
	fs.StringVar(&f.method, "method", methodAuto, "generate: how candidates are drawn: auto, table (whole space, ≤ 10 cells), sample (uniform), walk (random walks: short tails), deep (from stored deep states: long tails)")
	producerKeys.Bind(fs)
	c.AddCommand(resumeCmd(&f, stdin))
	cmdkit.SetExamples(c, examples)
	c.RunE = func(c *cobra.Command, _ []string) error {
		cfg, err := producerKeys.Load(c.Flags())
		if err != nil {
			return usageError{Err: err}
		}
		f.wait = f.wait || f.local
		seedSet := c.Flags().Changed("seed")
		ctx, stop := cmdkit.OnSignal(context.Background())
		defer stop()
		return produce(ctx, f, seedSet, cfg, stdin, stdout, stderr)
	}
	return cmdkit.Execute(context.Background(), c, args, stdin, stdout, stderr)
}

// producerKeys are the config keys the producer reads: NATS and PostgreSQL,
// the jobs' mode and budget, and for --local every key `solverd run`'s
// workers read (threads, split search, /metrics) and the writer's. Not
// the HTTP keys of results serve, nor the table watching of a daemon.
var producerKeys = config.Uses("nats", "database", "solver.workers", "solver.quick_workers", "solver.mode",
	"solver.max_nodes", "solver.timeout", "solver.threads", "solver.tables_dir", "solver.tables", "solver.tables_private",
	"solver.split_subtree_nodes", "solver.split_window", "solver.split_stall", "solver.metrics_addr", "solver.metrics_token",
	"results.fetch_batch", "results.fetch_wait", "results.max_bytes", "results.write_timeout", "producer.chunk_size", "producer.priority")

// errBadLines: --strict found lines that are not solvable states.
var errBadLines = errors.New("bad lines in the input (--strict): nothing enqueued")

func produce(ctx context.Context, f flags, seedSet bool, cfg config.Config, stdin io.Reader, stdout, stderr io.Writer) error {
	if f.puzzle == "" {
		return usagef("--puzzle is required")
	}
	spec, err := puzzle.ParseSpec(f.puzzle)
	if err != nil {
		return usageError{Err: err}
	}
	var goal string
	if f.goal != "" {
		if !spec.Family().TakesGoal() {
			return usagef("--goal applies to swap boards only; %s has one goal", spec)
		}
		g, err := puzzle.Parse(spec, f.goal)
		if err != nil {
			return usagef("--goal: %w", err)
		}
		goal = g.String()
	}
	sources := 0
	for _, set := range []bool{f.file != "", f.random != 0, f.enumerate, f.targetLength >= 0} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		return usagef("give exactly one of --file PATH, --random N, --enumerate, --target-length L --count N")
	}
	if f.targetLength >= 0 {
		if goal != "" {
			return usagef("--target-length counts distances to the standard goal; drop --goal")
		}
		return generate(ctx, f, seedSet, cfg, spec, stdout, stderr)
	}
	if f.random < 0 {
		return usagef("--random %d: want a positive count", f.random)
	}

	// The input first: a bad --strict file must not leave a batch behind.
	if f.random > 0 && !seedSet {
		var b [8]byte
		if _, err := crand.Read(b[:]); err != nil {
			return fmt.Errorf("random seed: %w", err)
		}
		f.seed = binary.LittleEndian.Uint64(b[:])
		fmt.Fprintf(stderr, "producer: --seed %d\n", f.seed)
	}
	rec := sourceRecord{File: f.file, Random: f.random, Seed: f.seed, Enumerate: f.enumerate, MaxStates: f.maxStates}
	src, file, err := rec.open(spec, f.strict, stdin, stderr)
	if err != nil {
		return err
	}
	if file != nil {
		defer file.Close()
	}

	e, err := connect(ctx, f, cfg, spec, stderr)
	if err != nil {
		return err
	}
	defer e.close()
	st, js, nc, pipeline := e.st, e.js, e.nc, e.pipeline

	batch, err := st.CreateBatch(ctx, spec.String(), cfg.Solver.Mode, src.total)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "batch %d\n", batch)
	opts := optionsRecord{Mode: cfg.Solver.Mode, Budget: job.NewBudget(cfg.Solver.MaxNodes, cfg.Solver.Timeout), Goal: goal,
		Chunk: policy.ChunkSize(spec, result.Mode(cfg.Solver.Mode), cfg.Producer.ChunkSize, nc.MaxPayload()), Split: f.split,
		Priority: job.Priority(cfg.Producer.Priority)}
	if f.split {
		opts.Chunk = 1 // a split state is one coordinator's job: never two in a message
	}
	if rec.File == "-" {
		rec.File = "" // stdin cannot be read again: the batch cannot be resumed
	}
	if err := st.SetBatchSource(ctx, batch, rec, opts, string(opts.Priority)); err != nil {
		return err
	}
	return enqueueAndFollow(ctx, f, st, js, nc, pipeline, spec, batch, src, file, opts, 0, stdout, stderr)
}

// ends are what a producer run talks to: the store, and NATS (the
// in-process pipeline with --local).
type ends struct {
	st       *store.Store
	nc       *nats.Conn
	js       jetstream.JetStream
	pipeline *local // nil unless --local
	closers  []func()
}

func (e *ends) close() {
	for i := len(e.closers) - 1; i >= 0; i-- {
		e.closers[i]()
	}
}

// connect opens the store (migrating it) and NATS, or with f.local starts
// the in-process pipeline.
func connect(ctx context.Context, f flags, cfg config.Config, spec puzzle.Spec, stderr io.Writer) (_ *ends, err error) {
	e := &ends{}
	defer func() {
		if err != nil {
			e.close()
		}
	}()
	dbURL, err := store.ResolveURLSaying(ctx, cfg.Database.URL, func(s string) { fmt.Fprintln(stderr, "producer:", s) })
	if err != nil {
		return nil, err
	}
	if e.st, err = store.Open(ctx, dbURL, store.WithPassword(cfg.Database.Password)); err != nil {
		return nil, err
	}
	e.closers = append(e.closers, e.st.Close)
	if err := e.st.Migrate(ctx); err != nil {
		return nil, fmt.Errorf("migrate database: %w", err)
	}
	qcfg := cmdkit.QueueConfig(cfg.NATS)
	if err := qcfg.Validate(); err != nil {
		return nil, usageError{Err: err}
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if f.local {
		if e.pipeline, err = startLocal(ctx, cfg, qcfg, e.st, log, spec.String(), func(s string) { fmt.Fprintln(stderr, "producer:", s) }); err != nil {
			return nil, err
		}
		e.closers = append(e.closers, func() { e.pipeline.stop() })
		e.nc, e.js = e.pipeline.conn.NC, e.pipeline.conn.JS
	} else {
		conn, err := cmdkit.Connect(cfg.NATS, "tessera-producer")
		if err != nil {
			return nil, err
		}
		e.closers = append(e.closers, conn.Close)
		e.nc, e.js = conn.NC, conn.JS
		if err := conn.Ensure(ctx); err != nil {
			return nil, err
		}
		if drift, err := queue.ReplicaDrift(ctx, e.js, qcfg); err == nil && len(drift) > 0 {
			log.Warn(queue.ReplicaDriftWarning, "differences", drift)
		}
	}
	return e, nil
}

// enqueueAndFollow publishes the states of batch from seq from on as jobs
// with opts, recording how far the server has stored them, and with
// f.wait follows the batch to its end.
func enqueueAndFollow(ctx context.Context, f flags, st *store.Store, js jetstream.JetStream, nc *nats.Conn, pipeline *local,
	spec puzzle.Spec, batch int64, src states, file *corpus, opts optionsRecord, from int64, stdout, stderr io.Writer) error {
	b := batchJobs{
		batch: batch, puzzle: spec.String(), mode: opts.Mode, budget: opts.Budget,
		goal: opts.Goal, chunk: opts.Chunk, from: from, split: opts.Split, prio: opts.Priority,
	}
	b.maxBytes = int(nc.MaxPayload()) - jobOverhead
	b.oversize = func(seq int64, text string) (string, error) {
		return refuse(ctx, st, spec, b, seq, text, file, stderr)
	}
	// Jobs the server already holds (a resume, a rerun within the
	// duplicate window) are summed up at the end, not listed: a resume
	// may meet thousands.
	var dupJobs, dupStates int64
	var firstDup string
	b.onDuplicate = func(id string, n int, _ uint64) {
		if dupJobs == 0 {
			firstDup = id
		}
		dupJobs++
		dupStates += int64(n)
	}
	// The enqueued mark is where a resume starts; recorded once a second
	// and at the end (a failed write only makes a resume redo more).
	var lastMark time.Time
	b.onStored = func(upTo int64) {
		if time.Since(lastMark) >= time.Second {
			lastMark = time.Now()
			_ = st.SetEnqueued(ctx, batch, upTo)
		}
	}
	b.onFull = (&fullNotice{w: stderr}).onFull
	start := time.Now()
	bar := newBar(f.quiet, stderr, src.total, "enqueue")
	n, err := enqueue(ctx, js, b, src, 256, bar.Add)
	bar.Finish()
	if err != nil {
		return err
	}
	if err := st.SetEnqueued(ctx, batch, n); err != nil {
		return err
	}
	if src.total < 0 {
		if err := st.SetBatchTotal(ctx, batch, n); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "producer: batch %d: %d states enqueued in %d-state jobs in %v\n", batch, n, b.chunk, time.Since(start).Round(time.Millisecond))
	if dupJobs > 0 {
		fmt.Fprintf(stderr, "producer: %d of those jobs (%d states, from job %s on) were already queued in %s (duplicate window): not enqueued again\n",
			dupJobs, dupStates, firstDup, queue.JobsStream)
	}
	if !f.wait {
		return nil
	}
	var failed <-chan error
	idle := func(ctx context.Context) string { return idleReason(ctx, js) }
	if pipeline != nil {
		failed, idle = pipeline.failed, nil // its solvers and writer are this process's
	}
	return follow(ctx, st, batch, n, f.quiet, start, failed, idle, stdout, stderr)
}

// newBar reports progress on stderr: a bar on a terminal, else a line
// every 10 s with the count, rate and time left (internal/progress).
func newBar(quiet bool, w io.Writer, total int64, what string) *progress.Meter {
	return progress.New(w, "producer: "+what, "states", total, progress.Options{Quiet: quiet})
}

// refuse handles a state too long for a job message. A valid state written
// long-hand (a 1000×1000 board with spaces between cells) is enqueued in
// its compact form; anything else is recorded at once as an invalid row
// naming its line and the limit, so the batch still finishes and the rest
// of the input goes on.
func refuse(ctx context.Context, st *store.Store, spec puzzle.Spec, b batchJobs, seq int64, text string, file *corpus, stderr io.Writer) (string, error) {
	where := fmt.Sprintf("state %d", seq)
	var lineErr error
	if file != nil {
		// The state being enqueued is the corpus's current line.
		where = fmt.Sprintf("%s:%d", file.name, file.cur.no)
		lineErr = file.cur.err
	}
	if lineErr == nil {
		s, err := puzzle.Parse(spec, text)
		if err == nil {
			if short := s.String(); jsonLen(short) <= b.maxBytes {
				return short, nil
			}
		} else if file != nil {
			lineErr = err
		}
	}
	reason := fmt.Sprintf("%s: %d bytes, more than the %d a job message can carry (NATS max payload); not enqueued", where, len(text), b.maxBytes)
	if lineErr != nil {
		reason = fmt.Sprintf("%s: %v; not enqueued", where, lineErr)
	}
	const keep = 256
	state := text
	if len(state) > keep {
		state = strings.ToValidUTF8(state[:keep], "") + "…"
	}
	row := job.Results{V: job.Version, JobID: fmt.Sprintf("%d-%d-refused", b.batch, seq), BatchID: b.batch, Puzzle: b.puzzle, FirstSeq: seq,
		Results: []result.Result{{Puzzle: b.puzzle, State: strings.ToValidUTF8(strings.ReplaceAll(state, "\x00", ""), "\uFFFD"), Status: result.StatusInvalid, Error: reason}}}
	if _, err := st.InsertResults(ctx, []job.Results{row}); err != nil {
		return "", fmt.Errorf("record refused %s: %w", where, err)
	}
	fmt.Fprintf(stderr, "producer: %s\n", reason)
	return "", nil
}
