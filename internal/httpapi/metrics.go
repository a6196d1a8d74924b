package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
)

// metrics writes the Prometheus text exposition format (version 0.0.4) by
// hand: a handful of families does not justify a client library. Every
// number comes from the batches table (its counters are kept by the results
// writer), so a scrape costs two small queries however many rows are
// stored. When PostgreSQL does not answer, the scrape still succeeds with
// tessera_up 1 and tessera_database_up 0.
func (s *server) metrics(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), metricsTimeout)
	defer cancel()
	start := time.Now()
	totals, err := s.st.Totals(ctx)
	var recent []store.Batch
	if err == nil {
		recent, err = s.st.Batches(ctx, MetricsBatches)
	}
	took := time.Since(start)
	if err != nil && r.Context().Err() == nil {
		s.log.Warn("metrics: database query failed", "err", err)
	}

	var b bytes.Buffer
	m := expo{&b}
	m.family("tessera_up", "gauge", "1 while the results server runs.")
	m.sample("tessera_up", nil, 1)
	m.family("tessera_database_up", "gauge", "1 if PostgreSQL answered this scrape's queries, else 0.")
	m.sample("tessera_database_up", nil, boolValue(err == nil))
	m.family("tessera_scrape_duration_seconds", "gauge", "Time this scrape's database queries took.")
	m.sample("tessera_scrape_duration_seconds", nil, took.Seconds())
	if err == nil {
		writeTotals(m, totals)
		writeRecent(m, recent)
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b.Bytes())
}

func writeTotals(m expo, totals []store.PuzzleTotals) {
	m.family("tessera_batches_total", "counter", "Batches recorded, by puzzle.")
	for _, t := range totals {
		m.sample("tessera_batches_total", []string{"puzzle", t.Puzzle}, float64(t.Batches))
	}
	m.family("tessera_batches_finished_total", "counter", "Batches with a stored row for every state, by puzzle.")
	for _, t := range totals {
		m.sample("tessera_batches_finished_total", []string{"puzzle", t.Puzzle}, float64(t.Finished))
	}
	m.family("tessera_solutions_total", "counter", "Rows stored in solutions, by puzzle and status (from the batch counters).")
	for _, t := range totals {
		for i, n := range t.ByStatus() {
			m.sample("tessera_solutions_total", []string{"puzzle", t.Puzzle, "status", string(result.Statuses()[i])}, float64(n))
		}
	}
}

func writeRecent(m expo, recent []store.Batch) {
	m.family("tessera_batch_states", "gauge",
		fmt.Sprintf("Rows stored in each of the %d newest batches, by status.", MetricsBatches))
	for _, b := range recent {
		id := strconv.FormatInt(b.ID, 10)
		for i, n := range b.ByStatus() {
			m.sample("tessera_batch_states", []string{"batch", id, "puzzle", b.Puzzle, "status", string(result.Statuses()[i])}, float64(n))
		}
	}
	m.family("tessera_batch_expected_states", "gauge",
		"States enqueued in each of the newest batches (absent while the producer has not said).")
	for _, b := range recent {
		if b.Total >= 0 {
			m.sample("tessera_batch_expected_states", []string{"batch", strconv.FormatInt(b.ID, 10), "puzzle", b.Puzzle}, float64(b.Total))
		}
	}
	m.family("tessera_batch_finished", "gauge", "1 when every state of the batch has a stored row, else 0.")
	for _, b := range recent {
		m.sample("tessera_batch_finished", []string{"batch", strconv.FormatInt(b.ID, 10), "puzzle", b.Puzzle}, boolValue(b.Finished()))
	}
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// expo writes the text exposition format.
type expo struct{ b *bytes.Buffer }

func (m expo) family(name, typ, help string) {
	fmt.Fprintf(m.b, "# HELP %s %s\n# TYPE %s %s\n", name, helpEscaper.Replace(help), name, typ)
}

// sample writes one line; labels alternate names and values.
func (m expo) sample(name string, labels []string, v float64) {
	m.b.WriteString(name)
	if len(labels) > 0 {
		m.b.WriteByte('{')
		for i := 0; i+1 < len(labels); i += 2 {
			if i > 0 {
				m.b.WriteByte(',')
			}
			m.b.WriteString(labels[i])
			m.b.WriteString(`="`)
			m.b.WriteString(labelEscaper.Replace(labels[i+1]))
			m.b.WriteByte('"')
		}
		m.b.WriteByte('}')
	}
	m.b.WriteByte(' ')
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		m.b.WriteString(strconv.FormatInt(int64(v), 10)) // counts print exactly, not as 1e+06
	} else {
		m.b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	}
	m.b.WriteByte('\n')
}

var (
	labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
)
