package testenv

import (
	"math"
	"testing"
)

// Sum adds a metric's samples over their labels and ignores metrics whose
// names merely start the same; a metric with no sample is NaN.
func TestSum(t *testing.T) {
	exp := `# HELP tessera_solver_jobs_total Job messages claimed.
# TYPE tessera_solver_jobs_total counter
tessera_solver_jobs_total{lane="heavy"} 12
tessera_solver_jobs_total{lane="quick"} 30
tessera_solver_jobs_total_extra 1000
tessera_writer_rows_total 7
`
	for name, want := range map[string]float64{"tessera_solver_jobs_total": 42, "tessera_writer_rows_total": 7} {
		if got := Sum(exp, name); got != want {
			t.Errorf("Sum(%s) = %v, want %v", name, got, want)
		}
	}
	if got := Sum(exp, "tessera_solver_jobs"); !math.IsNaN(got) {
		t.Errorf("a prefix of a name summed to %v", got)
	}
	if got := Gauge(exp, "tessera_solver_jobs_total"); !math.IsNaN(got) {
		t.Errorf("Gauge of a labelled counter = %v: the labels are part of the sample's name", got)
	}
}
