// Package deploy holds the deployment files' tests: docker-compose.yml is
// checked with compose-go, the loader behind `docker compose config`, since
// no Docker engine runs where the tests do.
package deploy

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/nats-io/nats-server/v2/server"
	"go.yaml.in/yaml/v3"
)

func load(t *testing.T) *types.Project {
	t.Helper()
	return loadEnv(t, map[string]string{"NATS_PASSWORD": "n", "POSTGRES_PASSWORD": "p", "RESULTS_HTTP_TOKEN": "t"})
}

func loadEnv(t *testing.T, env map[string]string) *types.Project {
	t.Helper()
	path, err := filepath.Abs("../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir:  filepath.Dir(path),
		ConfigFiles: []types.ConfigFile{{Filename: path}},
		Environment: env,
	}, func(o *loader.Options) {
		o.SetProjectName("tessera", true)
		o.Profiles = []string{"*"}
	})
	if err != nil {
		t.Fatalf("docker-compose.yml does not load: %v", err)
	}
	return p
}

// The tables volume is read-only where the comment says so
// (solverd), read-write only for the one-shot service that builds tables;
// every tessera service but the one-shots has a healthcheck on /readyz
// (able to take work: compose restarts nothing on it).
func TestCompose(t *testing.T) {
	p := load(t)
	svc := func(name string) types.ServiceConfig {
		s, err := p.GetService(name)
		if err != nil {
			t.Fatalf("service %s: %v", name, err)
		}
		return s
	}
	mount := func(s types.ServiceConfig, target string) types.ServiceVolumeConfig {
		for _, v := range s.Volumes {
			if v.Target == target {
				return v
			}
		}
		t.Fatalf("%s does not mount %s", s.Name, target)
		return types.ServiceVolumeConfig{}
	}
	const tables = "/var/lib/tessera/tables"
	if v := mount(svc("solverd"), tables); !v.ReadOnly || v.Source != "tables" {
		t.Errorf("solverd mounts the tables volume %+v, want read-only", v)
	}
	if v := mount(svc("tables"), tables); v.ReadOnly {
		t.Errorf("the tables service cannot build: %+v", v)
	}
	for name, port := range map[string]string{"results": "9465", "results-http": "8080", "solverd": "9464"} {
		s := svc(name)
		hc := s.HealthCheck
		if hc == nil || hc.Disable || len(hc.Test) == 0 {
			t.Errorf("%s has no healthcheck", name)
			continue
		}
		if test := strings.Join(hc.Test, " "); !strings.Contains(test, "/dev/tcp/127.0.0.1/"+port) || !strings.Contains(test, "/readyz") {
			t.Errorf("%s healthcheck %q does not probe /readyz on %s", name, test, port)
		}
	}
	// The containers' services answer inside the network; only the HTTP
	// API is published, on the host's loopback.
	for _, s := range p.Services {
		for _, pt := range s.Ports {
			if pt.HostIP != "127.0.0.1" {
				t.Errorf("%s publishes port %d on %q, not loopback", s.Name, pt.Target, pt.HostIP)
			}
		}
	}
	// Secrets come from .env, never the file: as secret files made from
	// its variables (TestComposeAsNewcomersMeetIt).
	if sec := p.Secrets["nats_password"]; sec.Environment != "NATS_PASSWORD" {
		t.Errorf("the NATS password is not ${NATS_PASSWORD}: %+v", sec)
	}
	if w := svc("solverd").Environment["TESSERA_SOLVER_WORKERS"]; w == nil || *w != "0" {
		t.Errorf("solverd workers %v, want 0 (the container's cores)", w)
	}
}

// Compose as a newcomer meets it:
//   - a password that reads as a number (about 5 % of `openssl rand -hex
//     24` passwords, 2e68…) is still a string to nats-server's parser of
//     deploy/nats.conf;
//   - postgres and the tessera services read the passwords from secret
//     files, in none of their environments (nats-server's own excepted);
//   - the producer mounts a corpus directory;
//   - one image serves every service, built once.
func TestComposeAsNewcomersMeetIt(t *testing.T) {
	for _, pw := range []string{"2e6843c2f0a1b5d7e9", "204817365091"} { // numbers to nats-server 2.10's and 2.15's parsers
		p := loadEnv(t, map[string]string{"NATS_PASSWORD": pw, "POSTGRES_PASSWORD": "p", "RESULTS_HTTP_TOKEN": "t"})
		v, err := p.GetService("nats")
		if err != nil || v.Environment["NATS_PASSWORD"] == nil {
			t.Fatalf("nats service: %v", err)
		}
		// nats.conf, read by the real config parser with the variable
		// compose hands the nats container.
		t.Setenv("NATS_PASSWORD", *v.Environment["NATS_PASSWORD"])
		opts, err := server.ProcessConfigFile("nats.conf")
		if err != nil {
			t.Errorf("nats-server refuses deploy/nats.conf with password %s: %v", pw, err)
		} else if opts.Username != "tessera" || opts.Password != pw {
			t.Errorf("nats.conf gives user %q password %q, want tessera %q", opts.Username, opts.Password, pw)
		}
	}

	p := loadEnv(t, map[string]string{"NATS_PASSWORD": "nats-secret-17", "POSTGRES_PASSWORD": "pg-secret-41", "RESULTS_HTTP_TOKEN": "http-secret-93"})
	svc := func(name string) types.ServiceConfig {
		s, err := p.GetService(name)
		if err != nil {
			t.Fatalf("service %s: %v", name, err)
		}
		return s
	}

	// The secrets: files made from .env's variables, in no environment
	// (the nats container's own password excepted: nats.conf reads it).
	for name, env := range map[string]string{"nats_password": "NATS_PASSWORD", "postgres_password": "POSTGRES_PASSWORD", "http_token": "RESULTS_HTTP_TOKEN"} {
		if sec, ok := p.Secrets[name]; !ok || sec.Environment != env {
			t.Errorf("secret %s %+v, want it made from %s", name, sec, env)
		}
	}
	for _, s := range p.Services {
		for k, val := range s.Environment {
			for _, secret := range []string{"pg-secret-41", "nats-secret-17", "http-secret-93"} {
				// The nodes' own password excepted: their config reads it.
				if val != nil && strings.Contains(*val, secret) && s.Name != "nats" && !strings.HasPrefix(s.Name, "nats-") {
					t.Errorf("%s has a secret in its environment (%s)", s.Name, k)
				}
			}
		}
	}
	for _, c := range []struct{ service, key, secret string }{
		{"postgres", "POSTGRES_PASSWORD_FILE", "postgres_password"},
		{"results", "TESSERA_DATABASE_PASSWORD_FILE", "postgres_password"},
		{"results-http", "TESSERA_DATABASE_PASSWORD_FILE", "postgres_password"},
		{"producer", "TESSERA_DATABASE_PASSWORD_FILE", "postgres_password"},
		{"results", "TESSERA_NATS_PASSWORD_FILE", "nats_password"},
		{"results-http", "TESSERA_NATS_PASSWORD_FILE", "nats_password"},
		{"solverd", "TESSERA_NATS_PASSWORD_FILE", "nats_password"},
		{"producer", "TESSERA_NATS_PASSWORD_FILE", "nats_password"},
		{"tables", "TESSERA_NATS_PASSWORD_FILE", "nats_password"},
		{"results", "TESSERA_RESULTS_HTTP_TOKEN_FILE", "http_token"},
		{"results-http", "TESSERA_RESULTS_HTTP_TOKEN_FILE", "http_token"},
	} {
		s := svc(c.service)
		f := s.Environment[c.key]
		mounted := slices.ContainsFunc(s.Secrets, func(r types.ServiceSecretConfig) bool { return r.Source == c.secret })
		if f == nil || *f != "/run/secrets/"+c.secret || !mounted {
			t.Errorf("%s: %s = %v, secret %s mounted %v", c.service, c.key, f, c.secret, mounted)
		}
	}

	// A corpus for the producer.
	corpus := false
	for _, m := range svc("producer").Volumes {
		corpus = corpus || m.Target == "/corpus" && m.ReadOnly
	}
	if !corpus {
		t.Errorf("producer mounts no read-only /corpus: %+v", svc("producer").Volumes)
	}

	// One image, built once.
	builds := 0
	for _, name := range []string{"results", "results-http", "solverd", "producer", "tables"} {
		s := svc(name)
		if s.Image != "tessera:local" {
			t.Errorf("%s runs image %q, want tessera:local", name, s.Image)
		}
		if s.Build != nil {
			builds++
		}
	}
	if builds != 1 {
		t.Errorf("%d services build the image, want 1", builds)
	}
}

// The cluster profile runs three nats-server nodes from
// deploy/nats-cluster.conf, each with its own name and store, routed to
// each other with JetStream on; every tessera service of the profile lists
// the three client URLs and asks for three replicas. The nodes' config is
// read by nats-server's own parser, with each node's environment.
func TestComposeCluster(t *testing.T) {
	p := load(t)
	var nodes []types.ServiceConfig
	for _, s := range p.Services {
		if strings.HasPrefix(s.Image, "nats:") && slices.Contains(s.Profiles, "cluster") {
			nodes = append(nodes, s)
		}
	}
	slices.SortFunc(nodes, func(a, b types.ServiceConfig) int { return strings.Compare(a.Name, b.Name) })
	if len(nodes) != 3 {
		t.Fatalf("the cluster profile has %d nats services, want 3", len(nodes))
	}
	const confTarget = "/etc/nats/tessera-cluster.conf"
	var clientURLs []string
	stores := map[string]string{}
	names := map[string]string{}
	for _, n := range nodes {
		clientURLs = append(clientURLs, "nats://"+n.Name+":4222")
		if strings.Join(n.Command, " ") != "-c "+confTarget {
			t.Errorf("%s runs %q, want -c %s", n.Name, n.Command, confTarget)
		}
		var conf string
		for _, v := range n.Volumes {
			switch v.Target {
			case confTarget:
				conf = v.Source
			case "/data":
				if v.Type != types.VolumeTypeVolume {
					t.Errorf("%s stores JetStream in %s %q, want a named volume", n.Name, v.Type, v.Source)
				}
				if other, dup := stores[v.Source]; dup {
					t.Errorf("%s and %s share the store volume %s", n.Name, other, v.Source)
				}
				stores[v.Source] = n.Name
			}
		}
		if conf == "" {
			t.Errorf("%s does not mount its config at %s", n.Name, confTarget)
			continue
		}
		env := func(k string) string {
			if v := n.Environment[k]; v != nil {
				return *v
			}
			return ""
		}
		if env("NATS_PASSWORD") != `"n"` { // quoted: a hex password must stay a string to nats-server
			t.Errorf("%s: NATS_PASSWORD is not the quoted ${NATS_PASSWORD}", n.Name)
		}
		t.Setenv("NATS_SERVER_NAME", env("NATS_SERVER_NAME"))
		t.Setenv("NATS_PASSWORD", env("NATS_PASSWORD"))
		o, err := server.ProcessConfigFile(conf)
		if err != nil {
			t.Errorf("%s: nats-server refuses %s: %v", n.Name, conf, err)
			continue
		}
		if o.ServerName == "" {
			t.Errorf("%s has no server name (JetStream clustering needs one)", n.Name)
		} else if other, dup := names[o.ServerName]; dup {
			t.Errorf("%s and %s are both named %q", n.Name, other, o.ServerName)
		}
		names[o.ServerName] = n.Name
		if !o.JetStream || o.StoreDir != "/data" {
			t.Errorf("%s: JetStream %v in %q, want on in /data (its volume)", n.Name, o.JetStream, o.StoreDir)
		}
		if o.Username != "tessera" || o.Password != "n" {
			t.Errorf("%s: clients authenticate as %q with a password from elsewhere than NATS_PASSWORD", n.Name, o.Username)
		}
		if o.Cluster.Name == "" || o.Cluster.Port != 6222 {
			t.Errorf("%s: cluster %q on port %d, want a named cluster on 6222", n.Name, o.Cluster.Name, o.Cluster.Port)
		}
		var routes []string
		for _, u := range o.Routes {
			routes = append(routes, u.Host)
		}
		for _, peer := range nodes {
			if !slices.Contains(routes, peer.Name+":6222") {
				t.Errorf("%s has no route to %s:6222 (routes %v)", n.Name, peer.Name, routes)
			}
		}
	}
	want := strings.Join(clientURLs, ",")
	clients := 0
	for _, s := range p.Services {
		if !slices.Contains(s.Profiles, "cluster") || s.Image != "tessera:local" {
			continue // the nodes, and the services of the single-server stack
		}
		clients++
		get := func(k string) string {
			if v := s.Environment[k]; v != nil {
				return *v
			}
			return ""
		}
		if got := get("TESSERA_NATS_URL"); got != want {
			t.Errorf("%s: TESSERA_NATS_URL %q, want every node: %q", s.Name, got, want)
		}
		if got := get("TESSERA_NATS_REPLICAS"); got != "3" {
			t.Errorf("%s: TESSERA_NATS_REPLICAS %q, want 3", s.Name, got)
		}
		if get("TESSERA_NATS_PASSWORD_FILE") != "/run/secrets/nats_password" || !slices.ContainsFunc(s.Secrets, func(r types.ServiceSecretConfig) bool { return r.Source == "nats_password" }) {
			t.Errorf("%s: the NATS password is not the nats_password secret's file", s.Name)
		}
	}
	for _, name := range []string{"solverd-cluster", "results-cluster", "queue-apply"} {
		if s, err := p.GetService(name); err != nil || !slices.Contains(s.Profiles, "cluster") {
			t.Errorf("the cluster profile has no %s (%v)", name, err)
		}
	}
	if clients < 3 {
		t.Errorf("%d tessera services in the cluster profile", clients)
	}
	if s, err := p.GetService("solverd-cluster"); err == nil {
		if v := s.Environment["TESSERA_SOLVER_TABLES_BUCKET"]; v == nil || *v == "" {
			t.Errorf("solverd-cluster pulls no tables from a bucket")
		}
	}
}

// Every nats-server image runs the version go.mod pins, the one the test
// and fault suites run: the minimum docs/DEPLOY.md names (2.9.10 kept on a
// restarted follower messages its leader had deleted).
func TestComposeNATSVersion(t *testing.T) {
	p := load(t)
	want := "nats:" + server.VERSION
	n := 0
	for _, s := range p.Services {
		if strings.HasPrefix(s.Image, "nats:") {
			n++
			if s.Image != want {
				t.Errorf("%s runs %s, want %s (go.mod's nats-server)", s.Name, s.Image, want)
			}
		}
	}
	if n != 4 {
		t.Errorf("%d nats services, want 4 (one, and the cluster profile's three)", n)
	}
}

// The monitoring profile: Prometheus and Grafana only in it, published on
// loopback only (TestCompose), each mounting the files of deploy/ that
// their own configuration names, Prometheus scraping every tessera
// service's metrics port with the token where /metrics wants it, and
// Grafana's admin password a secret from .env.
func TestComposeMonitoring(t *testing.T) {
	p := loadEnv(t, map[string]string{"NATS_PASSWORD": "n", "POSTGRES_PASSWORD": "p", "RESULTS_HTTP_TOKEN": "t", "GRAFANA_ADMIN_PASSWORD": "grafana-secret-57"})
	svc := func(name string) types.ServiceConfig {
		s, err := p.GetService(name)
		if err != nil {
			t.Fatalf("service %s: %v", name, err)
		}
		return s
	}
	for _, s := range p.Services {
		monitoring := s.Name == "prometheus" || s.Name == "grafana"
		if monitoring != slices.Contains(s.Profiles, "monitoring") || monitoring && len(s.Profiles) != 1 {
			t.Errorf("%s has profiles %v", s.Name, s.Profiles)
		}
	}
	// mounted is the file or directory of the repository mounted read-only
	// at target, failing t unless it exists.
	mounted := func(s types.ServiceConfig, target string) string {
		t.Helper()
		for _, v := range s.Volumes {
			if v.Target == target {
				if v.Type != types.VolumeTypeBind || !v.ReadOnly {
					t.Errorf("%s mounts %s as %s, read-only %v: want a read-only file of the repository", s.Name, target, v.Type, v.ReadOnly)
				}
				if _, err := os.Stat(v.Source); err != nil {
					t.Errorf("%s mounts %s from %v", s.Name, target, err)
				}
				return v.Source
			}
		}
		t.Errorf("%s mounts nothing at %s", s.Name, target)
		return ""
	}
	hasSecret := func(s types.ServiceConfig, name string) bool {
		return slices.ContainsFunc(s.Secrets, func(r types.ServiceSecretConfig) bool { return r.Source == name })
	}

	// Prometheus: its config where its command says, the rules where the
	// config says, the token secret for the jobs that send it.
	prom := svc("prometheus")
	var configPath string
	for _, a := range prom.Command {
		if v, ok := strings.CutPrefix(a, "--config.file="); ok {
			configPath = v
		}
	}
	if configPath == "" {
		t.Fatalf("prometheus runs %q, with no --config.file", prom.Command)
	}
	var cfg struct {
		RuleFiles     []string `yaml:"rule_files"`
		ScrapeConfigs []struct {
			JobName       string `yaml:"job_name"`
			Authorization *struct {
				Type            string `yaml:"type"`
				CredentialsFile string `yaml:"credentials_file"`
			} `yaml:"authorization"`
			DNSSD []struct {
				Names []string `yaml:"names"`
				Type  string   `yaml:"type"`
				Port  int      `yaml:"port"`
			} `yaml:"dns_sd_configs"`
			Static []struct {
				Targets []string `yaml:"targets"`
			} `yaml:"static_configs"`
		} `yaml:"scrape_configs"`
	}
	b, err := os.ReadFile(mounted(prom, configPath))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("prometheus.yml: %v", err)
	}
	if len(cfg.RuleFiles) == 0 {
		t.Error("prometheus.yml loads no rules")
	}
	for _, rf := range cfg.RuleFiles {
		if src := mounted(prom, rf); src != "" && filepath.Base(src) != filepath.Base(rulesFile) {
			t.Errorf("prometheus loads %s from %s, want %s", rf, src, rulesFile)
		}
	}
	// Each tessera service with a listener, at the port its environment
	// sets, and whether its /metrics wants the token.
	listeners := []struct {
		service, env string
		token        bool
	}{
		{"solverd", "TESSERA_SOLVER_METRICS_ADDR", false},
		{"solverd-cluster", "TESSERA_SOLVER_METRICS_ADDR", false},
		{"results", "TESSERA_RESULTS_METRICS_ADDR", true},
		{"results-cluster", "TESSERA_RESULTS_METRICS_ADDR", true},
		{"results-http", "TESSERA_RESULTS_HTTP_ADDR", true},
	}
	for _, l := range listeners {
		s := svc(l.service)
		addr := s.Environment[l.env]
		if addr == nil {
			t.Errorf("%s sets no %s", l.service, l.env)
			continue
		}
		_, port, _ := strings.Cut(*addr, ":")
		if l.service == "solverd" || l.service == "solverd-cluster" {
			if tok := s.Environment["TESSERA_SOLVER_METRICS_TOKEN"]; tok != nil && *tok != "" {
				l.token = true
			}
		}
		scraped := false
		for _, sc := range cfg.ScrapeConfigs {
			var static []string
			for _, st := range sc.Static {
				static = append(static, st.Targets...)
			}
			target := slices.Contains(static, l.service+":"+port)
			for _, d := range sc.DNSSD {
				target = target || d.Type == "A" && slices.Contains(d.Names, l.service) && strconv.Itoa(d.Port) == port
			}
			if !target {
				continue
			}
			scraped = true
			sends := sc.Authorization != nil && sc.Authorization.CredentialsFile == "/run/secrets/http_token"
			if l.token != sends {
				t.Errorf("job %s sends the token %v to %s, whose /metrics wants it %v", sc.JobName, sends, l.service, l.token)
			}
			if sends && !hasSecret(prom, "http_token") {
				t.Errorf("job %s reads /run/secrets/http_token, which prometheus does not mount", sc.JobName)
			}
		}
		if !scraped {
			t.Errorf("prometheus.yml scrapes no %s:%s (%s)", l.service, port, l.env)
		}
	}

	// Grafana: the provisioning directories, the dashboards where the
	// provider reads them, the datasource at the prometheus service.
	gf := svc("grafana")
	mounted(gf, "/etc/grafana/provisioning/datasources")
	providers := mounted(gf, "/etc/grafana/provisioning/dashboards")
	pb, err := os.ReadFile(filepath.Join(providers, "tessera.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var prov struct {
		Providers []struct {
			Options struct {
				Path string `yaml:"path"`
			} `yaml:"options"`
		} `yaml:"providers"`
	}
	if err := yaml.Unmarshal(pb, &prov); err != nil || len(prov.Providers) != 1 {
		t.Fatalf("dashboard providers %+v: %v", prov, err)
	}
	if src := mounted(gf, prov.Providers[0].Options.Path); src != "" {
		if abs, _ := filepath.Abs(dashboardDir); src != abs {
			t.Errorf("grafana reads dashboards from %s, want %s", src, abs)
		}
	}
	db, err := os.ReadFile("grafana/provisioning/datasources/prometheus.yml")
	if err != nil {
		t.Fatal(err)
	}
	var ds struct {
		Datasources []struct {
			URL string `yaml:"url"`
		} `yaml:"datasources"`
	}
	if err := yaml.Unmarshal(db, &ds); err != nil || len(ds.Datasources) != 1 {
		t.Fatalf("datasources %+v: %v", ds, err)
	}
	if want := "http://prometheus:9090"; ds.Datasources[0].URL != want || !slices.ContainsFunc(prom.Ports, func(p types.ServicePortConfig) bool { return p.Target == 9090 }) {
		t.Errorf("grafana's datasource is %s, want %s (the prometheus service)", ds.Datasources[0].URL, want)
	}
	if f := gf.Environment["GF_SECURITY_ADMIN_PASSWORD__FILE"]; f == nil || *f != "/run/secrets/grafana_admin_password" || !hasSecret(gf, "grafana_admin_password") {
		t.Errorf("grafana's admin password is not the grafana_admin_password secret: %v", f)
	}
	for _, k := range []string{"GF_AUTH_ANONYMOUS_ENABLED", "GF_USERS_ALLOW_SIGN_UP"} {
		if v := gf.Environment[k]; v == nil || *v != "false" {
			t.Errorf("grafana: %s is not false: anyone reaching its port could read or sign up", k)
		}
	}
	if sec := p.Secrets["grafana_admin_password"]; sec.Environment != "GRAFANA_ADMIN_PASSWORD" {
		t.Errorf("secret grafana_admin_password %+v, want it made from GRAFANA_ADMIN_PASSWORD", sec)
	}
	for k, v := range gf.Environment {
		if v != nil && strings.Contains(*v, "grafana-secret-57") {
			t.Errorf("grafana has its password in its environment (%s)", k)
		}
	}
}
