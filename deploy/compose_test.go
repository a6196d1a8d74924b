// Package deploy holds the deployment files' tests: docker-compose.yml is
// checked with compose-go, the loader behind `docker compose config`, since
// no Docker engine runs where the tests do.
package deploy

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/nats-io/nats-server/v2/server"
)

func load(t *testing.T) *types.Project {
	t.Helper()
	path, err := filepath.Abs("../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"NATS_PASSWORD": "n", "POSTGRES_PASSWORD": "p", "RESULTS_HTTP_TOKEN": "t"}
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

// Issue 18: the tables volume is read-only where the comment says so
// (solverd), read-write only for the one-shot service that builds tables;
// every tessera service but the one-shots has a healthcheck on /healthz.
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
		if test := strings.Join(hc.Test, " "); !strings.Contains(test, "/dev/tcp/127.0.0.1/"+port) || !strings.Contains(test, "/healthz") {
			t.Errorf("%s healthcheck %q does not probe /healthz on %s", name, test, port)
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
	// Secrets come from .env, never the file.
	if env := svc("solverd").Environment; env["TESSERA_NATS_PASSWORD"] == nil || *env["TESSERA_NATS_PASSWORD"] != "n" {
		t.Errorf("solverd's NATS password is not ${NATS_PASSWORD}: %v", env["TESSERA_NATS_PASSWORD"])
	}
	if w := svc("solverd").Environment["TESSERA_SOLVER_WORKERS"]; w == nil || *w != "0" {
		t.Errorf("solverd workers %v, want 0 (the container's cores)", w)
	}
}

// Issue 26: the cluster profile runs three nats-server nodes from
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
		if env("NATS_PASSWORD") != "n" {
			t.Errorf("%s: NATS_PASSWORD is not ${NATS_PASSWORD}", n.Name)
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
		if !slices.Contains(s.Profiles, "cluster") || s.Build == nil {
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
		if get("TESSERA_NATS_PASSWORD") != "n" {
			t.Errorf("%s: the NATS password is not ${NATS_PASSWORD}", s.Name)
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
