// Package deploy holds the deployment files' tests: docker-compose.yml is
// checked with compose-go, the loader behind `docker compose config`, since
// no Docker engine runs where the tests do.
package deploy

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
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
