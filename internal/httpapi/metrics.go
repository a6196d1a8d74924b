package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
)

// dbCollector exports the batch counters of PostgreSQL at each scrape.
// Every number comes from the batches table (its counters are kept by the
// results writer), so a scrape costs two small queries however many rows
// are stored. When PostgreSQL does not answer, the scrape still succeeds
// with tessera_up 1 and tessera_database_up 0. It is served through a
// client_golang registry of its own beside the Go runtime and process
// collectors (internal/metrics).
type dbCollector struct {
	st  *store.Store
	log *slog.Logger
}

var (
	descUp          = prometheus.NewDesc("tessera_up", "1 while the results server runs.", nil, nil)
	descDatabaseUp  = prometheus.NewDesc("tessera_database_up", "1 if PostgreSQL answered this scrape's queries, else 0.", nil, nil)
	descScrape      = prometheus.NewDesc("tessera_scrape_duration_seconds", "Time this scrape's database queries took.", nil, nil)
	descBatches     = prometheus.NewDesc("tessera_batches_total", "Batches recorded, by puzzle.", []string{"puzzle"}, nil)
	descFinished    = prometheus.NewDesc("tessera_batches_finished_total", "Batches with a stored row for every state, by puzzle.", []string{"puzzle"}, nil)
	descSolutions   = prometheus.NewDesc("tessera_solutions_total", "Rows stored in solutions, by puzzle and status (from the batch counters).", []string{"puzzle", "status"}, nil)
	descBatchStates = prometheus.NewDesc("tessera_batch_states",
		fmt.Sprintf("Rows stored in each of the %d newest batches, by status.", MetricsBatches), []string{"batch", "puzzle", "status"}, nil)
	descBatchExpected = prometheus.NewDesc("tessera_batch_expected_states",
		"States enqueued in each of the newest batches (absent while the producer has not said).", []string{"batch", "puzzle"}, nil)
	descBatchFinished = prometheus.NewDesc("tessera_batch_finished", "1 when every state of the batch has a stored row, else 0.", []string{"batch", "puzzle"}, nil)
	descBatchPaused   = prometheus.NewDesc("tessera_batch_paused", "1 while `results pause` holds the batch, else 0: it makes no progress on purpose.", []string{"batch", "puzzle"}, nil)
)

func (c dbCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descUp, descDatabaseUp, descScrape, descBatches, descFinished, descSolutions,
		descBatchStates, descBatchExpected, descBatchFinished, descBatchPaused} {
		ch <- d
	}
}

func (c dbCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), metricsTimeout)
	defer cancel()
	start := time.Now()
	totals, err := c.st.Totals(ctx)
	var recent []store.Batch
	if err == nil {
		recent, err = c.st.Batches(ctx, MetricsBatches)
	}
	took := time.Since(start)
	if err != nil {
		c.log.Warn("metrics: database query failed", "err", err)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge(descUp, 1)
	gauge(descDatabaseUp, boolValue(err == nil))
	gauge(descScrape, took.Seconds())
	if err != nil {
		return
	}
	for _, t := range totals {
		counter(descBatches, float64(t.Batches), t.Puzzle)
		counter(descFinished, float64(t.Finished), t.Puzzle)
		for i, n := range t.ByStatus() {
			counter(descSolutions, float64(n), t.Puzzle, string(result.Statuses()[i]))
		}
	}
	for _, b := range recent {
		id := strconv.FormatInt(b.ID, 10)
		for i, n := range b.ByStatus() {
			gauge(descBatchStates, float64(n), id, b.Puzzle, string(result.Statuses()[i]))
		}
		if b.Total >= 0 {
			gauge(descBatchExpected, float64(b.Total), id, b.Puzzle)
		}
		gauge(descBatchFinished, boolValue(b.Finished()), id, b.Puzzle)
		gauge(descBatchPaused, boolValue(b.PausedAt != nil), id, b.Puzzle)
	}
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
