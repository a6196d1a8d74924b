package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"

	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/store/storetest"
	"github.com/tessera-solver/tessera/internal/testenv"
)

const (
	rulesFile     = "prometheus/tessera-rules.yml"
	rulesTestFile = "prometheus/tessera-rules.test.yml"
	dashboardDir  = "grafana/dashboards"
)

// query is one PromQL expression of the rules or a dashboard, with where
// it comes from for the failures.
type query struct {
	where string
	expr  parser.Expr
}

// grafanaVars are the dashboard variables Grafana substitutes before it
// sends a query, each with a value of the same PromQL kind (a range, a
// number), so that the text Prometheus would receive is what is parsed.
var grafanaVars = strings.NewReplacer(
	"$__rate_interval", "1m", "${__rate_interval}", "1m",
	"$__interval_ms", "15000", "$__interval", "15s", "${__interval}", "15s",
	"$__range_s", "3600", "$__range", "1h", "${__range}", "1h",
)

// ruleQueries loads the rules file as Prometheus does (rulefmt: groups,
// names, labels and annotation templates, every expression parsed).
func ruleQueries(t *testing.T) []query {
	t.Helper()
	groups, errs := rulefmt.ParseFile(rulesFile, false)
	for _, err := range errs {
		t.Errorf("%s: %v", rulesFile, err)
	}
	if groups == nil {
		t.FailNow()
	}
	var qs []query
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			name := r.Alert + r.Record
			e, err := parser.ParseExpr(r.Expr)
			if err != nil {
				t.Errorf("%s: rule %s: %v", rulesFile, name, err)
				continue
			}
			if r.Alert != "" && (r.Annotations["summary"] == "" || r.Annotations["description"] == "") {
				t.Errorf("%s: alert %s lacks a summary or a description", rulesFile, name)
			}
			qs = append(qs, query{where: rulesFile + ": " + name, expr: e})
		}
	}
	return qs
}

type dashPanel struct {
	Title      string `json:"title"`
	Type       string `json:"type"`
	Datasource *struct {
		UID string `json:"uid"`
	} `json:"datasource"`
	Targets []struct {
		Expr  string `json:"expr"`
		RefID string `json:"refId"`
	} `json:"targets"`
	Panels []dashPanel `json:"panels"` // a collapsed row's
}

// dashboardQueries reads every panel target of every dashboard, with
// Grafana's variables substituted, and parses it.
func dashboardQueries(t *testing.T) []query {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dashboardDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no dashboards in %s (%v)", dashboardDir, err)
	}
	var qs []query
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			UID        string      `json:"uid"`
			Panels     []dashPanel `json:"panels"`
			Templating struct {
				List []struct {
					Name    string `json:"name"`
					Type    string `json:"type"`
					Current struct {
						Value string `json:"value"`
					} `json:"current"`
				} `json:"list"`
			} `json:"templating"`
		}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if d.UID == "" {
			t.Errorf("%s has no uid: provisioning would make a new dashboard at each start", f)
		}
		// The datasource variable defaults to the provisioned datasource.
		if l := d.Templating.List; len(l) == 0 || l[0].Type != "datasource" || l[0].Current.Value != provisionedDatasource(t) {
			t.Errorf("%s: the first variable %+v is not a datasource variable defaulting to %s", f, l, provisionedDatasource(t))
		}
		var walk func([]dashPanel)
		walk = func(ps []dashPanel) {
			for _, p := range ps {
				walk(p.Panels)
				if p.Type == "row" {
					continue
				}
				if len(p.Targets) == 0 {
					t.Errorf("%s: panel %q has no query", f, p.Title)
				}
				if p.Datasource == nil || p.Datasource.UID != "${datasource}" {
					t.Errorf("%s: panel %q does not use the datasource variable", f, p.Title)
				}
				for _, tg := range p.Targets {
					text := grafanaVars.Replace(tg.Expr)
					where := fmt.Sprintf("%s: panel %q %s", f, p.Title, tg.RefID)
					if strings.Contains(text, "$") {
						t.Errorf("%s: %q keeps a variable the test does not substitute", where, tg.Expr)
						continue
					}
					e, err := parser.ParseExpr(text)
					if err != nil {
						t.Errorf("%s: %v", where, err)
						continue
					}
					qs = append(qs, query{where: where, expr: e})
				}
			}
		}
		walk(d.Panels)
	}
	return qs
}

// provisionedDatasource is the uid of the datasource Grafana provisions.
func provisionedDatasource(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("grafana/provisioning/datasources/prometheus.yml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s+uid:\s*(\S+)`).FindSubmatch(b)
	if m == nil {
		t.Fatal("the provisioned datasource has no uid")
	}
	return string(m[1])
}

// Every expression of the alert rules and of the dashboards parses with
// Prometheus's own parser, and the rules load as rule groups.
func TestMonitoringQueriesParse(t *testing.T) {
	rules, panels := ruleQueries(t), dashboardQueries(t)
	if len(rules) < 8 || len(panels) < 20 {
		t.Errorf("%d rule and %d panel expressions: the files were not read whole", len(rules), len(panels))
	}
	// The substitution is needed: the parser refuses Grafana's variables.
	if _, err := parser.ParseExpr("rate(tessera_writer_rows_total[$__rate_interval])"); err == nil {
		t.Error("the parser takes $__rate_interval: the substitution test proves nothing")
	}
}

// prometheusOwn are series Prometheus makes itself, not the processes.
var prometheusOwn = []string{"up"}

// targetLabels are added by Prometheus to every scraped series.
var targetLabels = []string{"job", "instance"}

// exported is what the processes' /metrics expose: each family's series
// (histograms as their _bucket, _sum and _count series) with labels.
type exported map[string][]map[string]string

func (ex exported) add(t *testing.T, who, body string) {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("%s /metrics does not parse: %v", who, err)
	}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if m.Histogram != nil {
				bucket := map[string]string{"le": ""}
				for k, v := range labels {
					bucket[k] = v
				}
				ex[name+"_bucket"] = append(ex[name+"_bucket"], bucket)
				ex[name+"_sum"] = append(ex[name+"_sum"], labels)
				ex[name+"_count"] = append(ex[name+"_count"], labels)
				continue
			}
			ex[name] = append(ex[name], labels)
		}
	}
}

// check fails t for each selector of q naming a metric no process
// exports, or matching a label no series of it has (or, for an equality,
// a value none has), and for each aggregation grouping by a label none
// of the metrics under it has.
func (ex exported) check(t *testing.T, q query) {
	t.Helper()
	parser.Inspect(q.expr, func(node parser.Node, _ []parser.Node) error {
		switch n := node.(type) {
		case *parser.VectorSelector:
			if slices.Contains(prometheusOwn, n.Name) {
				return nil
			}
			series, ok := ex[n.Name]
			if !ok {
				t.Errorf("%s: %s is exported by none of solverd run, results run, results serve", q.where, n.Name)
				return nil
			}
			for _, m := range n.LabelMatchers {
				if m.Name == "__name__" || slices.Contains(targetLabels, m.Name) {
					continue
				}
				if !slices.ContainsFunc(series, func(l map[string]string) bool {
					v, has := l[m.Name]
					return has && (m.Value == "" || m.Matches(v))
				}) {
					t.Errorf("%s: no series of %s has %s", q.where, n.Name, m)
				}
			}
		case *parser.AggregateExpr:
			if n.Without {
				return nil
			}
			var names []string
			parser.Inspect(n.Expr, func(inner parser.Node, _ []parser.Node) error {
				if vs, ok := inner.(*parser.VectorSelector); ok {
					names = append(names, vs.Name)
				}
				return nil
			})
			for _, g := range n.Grouping {
				if slices.Contains(targetLabels, g) {
					continue
				}
				found := slices.ContainsFunc(names, func(name string) bool {
					return slices.ContainsFunc(ex[name], func(l map[string]string) bool { _, has := l[g]; return has })
				})
				if !found {
					t.Errorf("%s: grouped by %s, which none of %v has", q.where, g, names)
				}
			}
		}
		return nil
	})
}

// Every metric the rules and the dashboards read is exported by the real
// processes: solverd run, results run and results serve are built and run
// on an in-process NATS server and a private PostgreSQL schema, a producer
// sends a batch through them, and their /metrics are read.
func TestMonitoringMetricsExported(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries")
	}
	qs := append(ruleQueries(t), dashboardQueries(t)...)
	db := storetest.SchemaURL(t)
	natsURL, _ := natstest.Server(t)

	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./producer", "./solverd", "./results")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	const token = "monitoring-test-token"
	work := t.TempDir()
	// No TESSERA_* of the caller's, and no config file of its home.
	env := []string{"TESSERA_RESULTS_HTTP_TOKEN=" + token, "TESSERA_SOLVER_METRICS_TOKEN=" + token, "HOME=" + work, "XDG_CONFIG_HOME=" + work}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, "TESSERA_") && k != "DATABASE_URL" && k != "HOME" && k != "XDG_CONFIG_HOME" {
			env = append(env, kv)
		}
	}
	start := func(name string, args ...string) *testenv.SyncBuffer {
		t.Helper()
		var stderr testenv.SyncBuffer
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = work, env, io.Discard, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		t.Cleanup(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				<-exited
			}
		})
		return &stderr
	}
	listenRe := regexp.MustCompile(`serving /metrics, /healthz and /readyz" addr=(\S+)`)
	listening := func(who string, stderr *testenv.SyncBuffer) string {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if m := listenRe.FindStringSubmatch(stderr.String()); m != nil {
				return m[1]
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s serves no /metrics:\n%s", who, stderr.String())
			}
		}
	}

	solverd := start("solverd", "run", "--nats-url", natsURL, "--workers", "1", "--tables", "none", "--metrics-addr", "127.0.0.1:0")
	writer := start("results", "run", "--nats-url", natsURL, "--database-url", db, "--metrics-addr", "127.0.0.1:0", "--fetch-wait", "50ms")
	serveAddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(testenv.FreePort(t)))
	serve := start("results", "serve", "--database-url", db, "--http-addr", serveAddr)
	addrs := map[string]string{"solverd run": listening("solverd run", solverd), "results run": listening("results run", writer), "results serve": serveAddr}
	for _, addr := range addrs {
		testenv.WaitProbe(t, addr, "/readyz", http.StatusOK, 60*time.Second)
	}

	// A batch through the pipeline: the series that appear with their
	// first event (solves by puzzle, queue lag, the batch's rows).
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	prod := exec.CommandContext(ctx, filepath.Join(bin, "producer"), "--puzzle", "8", "--random", "20", "--seed", "1", "--wait",
		"--nats-url", natsURL, "--database-url", db)
	prod.Dir, prod.Env = work, env
	if out, err := prod.CombinedOutput(); err != nil {
		t.Fatalf("producer: %v\n%s\nsolverd:\n%s\nresults run:\n%s", err, out, solverd.String(), writer.String())
	}

	ex := exported{}
	scrape := func(who, addr string) string {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+addr+"/metrics", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s /metrics: %v", who, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s /metrics: %d %s", who, resp.StatusCode, b)
		}
		return string(b)
	}
	for _, who := range slices.Sorted(maps.Keys(addrs)) {
		ex.add(t, who, scrape(who, addrs[who]))
	}
	for _, q := range qs {
		ex.check(t, q)
	}
	if t.Failed() {
		names := slices.Sorted(maps.Keys(ex))
		t.Logf("exported: %s\nresults serve:\n%s", strings.Join(names, " "), tail(serve.String()))
	}
}

// tail is the last 20 lines of s.
func tail(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}

// promtool, Prometheus's own checker (Debian's prometheus package; .ci/run
// installs it): the rules load, the unit tests of tessera-rules.test.yml
// pass (alerts firing and clearing on made-up series), and prometheus.yml
// is a valid configuration once its container paths are this checkout's.
func TestPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("promtool is missing in CI: .ci/run installs it (apt-get install prometheus)")
		}
		t.Skip("promtool is missing: apt-get install prometheus")
	}
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(promtool, args...).CombinedOutput()
		if err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("check", "rules", rulesFile)
	if out := run("test", "rules", rulesTestFile); !strings.Contains(out, "SUCCESS") {
		t.Errorf("promtool test rules says:\n%s", out)
	}

	dir := t.TempDir()
	b, err := os.ReadFile("prometheus/prometheus.yml")
	if err != nil {
		t.Fatal(err)
	}
	rules, err := filepath.Abs(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	token := filepath.Join(dir, "http_token")
	if err := os.WriteFile(token, []byte("t\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	local := strings.NewReplacer("/etc/prometheus/tessera-rules.yml", rules, "/run/secrets/http_token", token).Replace(string(b))
	if local == string(b) {
		t.Fatal("prometheus.yml names neither the rules nor the token at their container paths")
	}
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(local), 0o600); err != nil {
		t.Fatal(err)
	}
	run("check", "config", cfg)
}
