package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tessera-solver/tessera/internal/redact"
)

// Each server's own copy of a stream. The JetStream API (STREAM.INFO)
// is answered by the stream's leader alone, and the per-server view
// ($SYS.REQ.SERVER.PING.JSZ) needs the system account; what every
// server tells without credentials is its monitoring endpoint, /jsz,
// which lists the streams it holds with its own state of each. On
// nats-server 2.9.10 a follower restarted after a leader kill can keep
// job messages its leader has deleted: only such a per-server read shows
// it.

// jszStreams is the part of /jsz?accounts=true&streams=true read here,
// with the server's name from /varz (/jsz has only its id); the field
// names are the same on 2.9 and 2.15.
type jszStreams struct {
	Name     string `json:"server_name"`
	Accounts []struct {
		Streams []struct {
			Name    string `json:"name"`
			Cluster *struct {
				Leader string `json:"leader"`
			} `json:"cluster"`
			State struct {
				Msgs     uint64 `json:"messages"`
				Bytes    uint64 `json:"bytes"`
				FirstSeq uint64 `json:"first_seq"`
				LastSeq  uint64 `json:"last_seq"`
			} `json:"state"`
		} `json:"stream_detail"`
	} `json:"account_details"`
}

// readCopies reads each monitoring endpoint's copies of the streams, all
// at once, each bounded by timeout: stream name -> copies, and why the
// endpoints that did not answer did not.
func readCopies(ctx context.Context, urls []string, timeout time.Duration) (out map[string][]StreamCopy, errs []string) {
	out = map[string][]StreamCopy{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, u := range urls {
		u = strings.TrimRight(strings.TrimSpace(u), "/")
		if u == "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			z, err := readJsz(ctx, u, timeout)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err.Error())
				return
			}
			for _, a := range z.Accounts {
				for _, s := range a.Streams {
					c := StreamCopy{Server: z.Name, Messages: s.State.Msgs, Bytes: s.State.Bytes,
						FirstSeq: s.State.FirstSeq, LastSeq: s.State.LastSeq}
					c.Leader = s.Cluster == nil || s.Cluster.Leader == z.Name
					out[s.Name] = append(out[s.Name], c)
				}
			}
		}()
	}
	wg.Wait()
	return out, errs
}

func readJsz(ctx context.Context, base string, timeout time.Duration) (jszStreams, error) {
	var z jszStreams
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := getJSON(ctx, base, "/jsz?accounts=true&streams=true", &z); err != nil {
		return z, err
	}
	return z, getJSON(ctx, base, "/varz", &z) // only server_name is read from it
}

// getJSON decodes the monitoring endpoint base's path into v.
func getJSON(ctx context.Context, base, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if err != nil {
		return fmt.Errorf("monitoring endpoint %s: %w", redact.URL(base), err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return redact.Error(fmt.Errorf("monitoring endpoint %s: %w", redact.URL(base), err), redact.Secrets(base)...)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("monitoring endpoint %s: GET %s: %s", redact.URL(base), path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("monitoring endpoint %s: GET %s: %w", redact.URL(base), path, err)
	}
	return nil
}

// compareCopies marks, of a stream's copies, those that disagree with the
// leader's (ss, as the leader answered it): at the same last sequence
// but holding another number of messages. A copy behind the leader is
// lag, which the peers show, not a disagreement.
func compareCopies(copies []StreamCopy, ss StreamStatus) []StreamCopy {
	if ss.Missing || ss.Error != "" {
		return copies
	}
	for i := range copies {
		c := &copies[i]
		c.Leader = c.Server == ss.Leader || ss.Leader == "" && c.Leader
		c.Disagrees = !c.Leader && c.LastSeq == ss.LastSeq && c.Messages != ss.Messages
	}
	return copies
}
