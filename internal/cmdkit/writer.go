package cmdkit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/ingest"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/metrics"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/store"
)

// WriterSources ensures the streams, the durable results consumer and the
// consumer of TESSERA_DEAD's job copies, and adapts them to ingest.Source:
// the writer's inputs, the same for `results run` and `producer --local`.
func (c *Conn) WriterSources(ctx context.Context, log *slog.Logger) (results, dead ingest.Source, err error) {
	if err := c.Ensure(ctx); err != nil {
		return nil, nil, err
	}
	if drift, err := queue.ReplicaDrift(ctx, c.JS, c.Queue); err == nil && len(drift) > 0 {
		log.Warn(queue.ReplicaDriftWarning, "differences", drift)
	}
	rc, err := queue.EnsureResultsConsumer(ctx, c.JS, c.Queue)
	if err != nil {
		return nil, nil, err
	}
	src, err := queue.NewResultsSource[ingest.Msg](rc)
	if err != nil {
		return nil, nil, err
	}
	dc, err := queue.EnsureDeadCopiesConsumer(ctx, c.JS, c.Queue)
	if err != nil {
		return nil, nil, err
	}
	deadSrc, err := queue.NewDeadJobsSource[ingest.Msg](dc)
	if err != nil {
		return nil, nil, err
	}
	// The writer sweeps TESSERA_RESULTS for messages stranded by an
	// unclean server stop (queue.ResultsSource.SweepStranded says why here).
	return src.SweepStranded(c.JS, queue.StrandedEvery, func(line string, err error) {
		if err != nil {
			log.Warn("stranded-results sweep failed", "err", err)
			return
		}
		log.Warn("stranded results messages", "what", line)
	}), deadSrc, nil
}

// WriterMetrics serves the writer's /metrics, /healthz and /readyz on
// r.MetricsAddr when it is set and returns what counts for it, with the
// func that stops the listener; nil and a no-op otherwise. /readyz,
// tessera_ready and tessera_nats_connected follow h (nil: always ready, no gauge). A taken
// port does not stop the writer (several may run on a host).
func WriterMetrics(r config.Results, h *Health, log *slog.Logger) (*metrics.Writer, func()) {
	if r.MetricsAddr == "" {
		return nil, func() {}
	}
	reg := metrics.NewRegistry()
	m := metrics.NewWriter(reg)
	var ready func(context.Context) error
	if h != nil {
		h.Measure(metrics.NewConnected(reg))
		ready = h.Ready
		metrics.NewReady(reg, ready)
	}
	srv, err := metrics.Listen(r.MetricsAddr, r.HTTPToken, reg, ready, log)
	if err != nil {
		log.Warn("no /metrics: give each results run on a host its own results.metrics_addr", "err", err)
		return m, func() {}
	}
	log.Info("serving /metrics, /healthz and /readyz", "addr", srv.Addr())
	return m, func() { srv.Close() }
}

// RunWriter is the results writer until ctx ends: the ingest loop into
// st, the dead-letter recorder beside it, every write counted in m when it
// is not nil (WriterMetrics), and a progress line every 10 s while the
// totals change.
func RunWriter(ctx context.Context, src, deadSrc ingest.Source, st *store.Store, m *metrics.Writer, r config.Results, log *slog.Logger) error {
	var sink ingest.Sink = st
	if m != nil {
		sink = measuredSink{st, m}
	}
	in := ingest.New(src, sink, ingest.Options{FetchBatch: r.FetchBatch, FetchWait: r.FetchWait,
		MaxBytes: r.MaxBytes, WriteTimeout: r.WriteTimeout, Logger: log})
	if m != nil {
		m.Holding(in.Held)
	}
	// The loops stop together: the dead-letter recorder failing ends the
	// writer (a supervisor restarts it) instead of leaving half of it
	// running, and an ingest failure stops the recorder.
	loops := NewLoops(ctx, "results writer")
	loops.Go("progress", func(ctx context.Context) error {
		ReportEvery(ctx, in.Stats, log, 10*time.Second, time.Hour)
		return nil
	})
	loops.Go("dead-letter recorder", func(ctx context.Context) error {
		return ingest.RunDeadJobs(ctx, deadSrc, sink, ingest.Options{FetchWait: r.FetchWait, WriteTimeout: r.WriteTimeout, Logger: log})
	})
	err := in.Run(loops.Context())
	err = errors.Join(err, loops.Stop())
	s := in.Stats()
	log.Info("stopped", "messages", s.Messages, "rows", s.Rows, "inserted", s.Inserted, "rejected", s.Rejected)
	return err
}

// ReportEvery logs the totals every `every` while they change, with the
// rate since the last line; idle, it says so once and then once per
// idleEvery, so an idle writer does not fill the logs.
func ReportEvery(ctx context.Context, stats func() ingest.Stats, log *slog.Logger, every, idleEvery time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	last, lastAt := stats(), time.Now()
	var idleSaid time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			s := stats()
			if s == last {
				if idleSaid.IsZero() || now.Sub(idleSaid) >= idleEvery {
					log.Info("idle: no results", "since", lastAt.Format(time.RFC3339), "rows", s.Rows, "inserted", s.Inserted)
					idleSaid = now
				}
				continue
			}
			rate := float64(s.Rows-last.Rows) / now.Sub(lastAt).Seconds()
			log.Info("progress", "messages", s.Messages, "rows", s.Rows, "inserted", s.Inserted,
				"rows_per_s", fmt.Sprintf("%.0f", rate), "rejected", s.Rejected, "retries", s.Retries)
			last, lastAt, idleSaid = s, now, time.Time{}
		}
	}
}

// measuredSink is the store with every write measured for /metrics.
type measuredSink struct {
	st *store.Store
	m  *metrics.Writer
}

var _ ingest.Sink = measuredSink{}

func rowsOf(b []job.Results) int {
	n := 0
	for _, r := range b {
		n += len(r.Results)
	}
	return n
}

func (s measuredSink) InsertResults(ctx context.Context, b []job.Results) (int, error) {
	t := time.Now()
	n, err := s.st.InsertResults(ctx, b)
	s.m.Transaction(rowsOf(b), n, time.Since(t), err)
	return n, err
}

// InsertResultsReport keeps the store's collision report (ingest uses it
// when the sink has it).
func (s measuredSink) InsertResultsReport(ctx context.Context, b []job.Results) (store.Report, error) {
	t := time.Now()
	rep, err := s.st.InsertResultsReport(ctx, b)
	s.m.Transaction(rowsOf(b), rep.Inserted, time.Since(t), err)
	if err == nil {
		s.m.DeadLetters(rep.Collisions)
	}
	return rep, err
}

func (s measuredSink) AddDeadLetters(ctx context.Context, ls []store.DeadLetter) (int, error) {
	n, err := s.st.AddDeadLetters(ctx, ls)
	s.m.DeadLetters(n)
	return n, err
}
