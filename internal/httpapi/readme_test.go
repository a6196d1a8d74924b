package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/internal/httpapi"
	"github.com/tessera-solver/tessera/internal/httpauth"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

const readmePath = "../../README.md"

// readmeCurl is a curl of the README: its path, and which token its
// Authorization header names.
var readmeCurl = regexp.MustCompile(`curl .*?(?:-H "Authorization: Bearer \$(\w+)" )?'?http://127\.0\.0\.1:8080(/[^' ]*)'?$`)

// The rows of length 28 that `make run` stores first (batch 1, the
// 8-puzzle's 20,000 random states of seed 1), as `results export` shows
// them: the README's /api/scrambles examples answer these after `make run`.
var makeRunRows = []struct {
	seq          int64
	state, moves string
}{
	{47, "8 5 0/6 4 2/3 1 7", "U U R R D D L U L U R R D L L U R R D D L U R D L L U U"},
	{63, "0 5 4/6 2 1/3 8 7", "L U U R D L L U R R D L L D R R U L L U R R D L D L U U"},
	{103, "0 1 7/3 5 8/2 6 4", "U U L D D R U L L D R R U U L L D R R U L L D R R U L L"},
	{180, "3 8 7/6 5 1/2 4 0", "D D R U R U L D L U R D L D R R U L L D R R U U L D L U"},
}

// The README's HTTP examples are real answers: each curl of README.md is
// sent to a server holding makeRunRows, behind the guard results serve
// uses ($TOKEN a writer token, as the README sets it up;
// $TESSERA_RESULTS_HTTP_TOKEN the read token), validated against
// openapi.json, and a response line the README shows under a curl must be
// the answer, trimmed as trimAnswer does. TESSERA_UPDATE_README=1
// rewrites those lines instead of failing.
func TestREADMEHTTPExamples(t *testing.T) {
	t.Parallel()
	sp := loadSpec(t)
	st := storetest.NewStore(t)
	ctx := context.Background()
	id, err := st.CreateBatch(ctx, "8", "optimal", 20000)
	if err != nil {
		t.Fatal(err)
	}
	if id != 1 {
		t.Fatalf("batch %d, want 1 on a fresh database", id)
	}
	var rs []job.Results
	for _, r := range makeRunRows {
		rs = append(rs, job.Results{V: job.Version, JobID: fmt.Sprintf("1-%d", r.seq), BatchID: 1, Puzzle: "sliding:3x3", FirstSeq: r.seq,
			Results: []result.Result{{Puzzle: "sliding:3x3", State: r.state, Moves: r.moves, Length: 28, Optimal: true, LowerBound: 28,
				Nodes: 28, Solver: "bfs-table", Status: result.StatusSolved}}})
	}
	if _, err := st.InsertResults(ctx, rs); err != nil {
		t.Fatal(err)
	}
	tokens := map[string]string{"TOKEN": writerA, "TESSERA_RESULTS_HTTP_TOKEN": reader}
	g := httpauth.NewGuard(reader, []httpauth.Writer{{Name: "backend", Token: writerA}}, httpapi.OpenPaths()...)
	srv := httptest.NewServer(g.Wrap(httpapi.New(st, nil)))
	t.Cleanup(srv.Close)

	raw, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	curls, shown, changed := 0, 0, false
	for i, line := range lines {
		if !strings.Contains(line, "curl ") {
			continue
		}
		m := readmeCurl.FindStringSubmatch(line)
		if m == nil {
			if strings.Contains(line, "127.0.0.1:8080") {
				t.Errorf("README line %d: a curl this test cannot read: %s", i+1, line)
			}
			continue
		}
		curls++
		req, err := http.NewRequest("GET", srv.URL+m[2], nil)
		if err != nil {
			t.Fatal(err)
		}
		if m[1] != "" {
			tok, ok := tokens[m[1]]
			if !ok {
				t.Fatalf("README line %d: no token for $%s", i+1, m[1])
			}
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 {
			t.Errorf("README line %d: %s: %d %s", i+1, m[2], resp.StatusCode, body)
			continue
		}
		op := sp.operationOf(t, req)
		if err := sp.check(req, op, resp, body); err != nil {
			t.Errorf("README line %d: %s: %v", i+1, m[2], err)
		}
		// A shell session ("$ curl ...") shows the answer on the next line.
		if !strings.HasPrefix(line, "$ ") || i+1 == len(lines) || strings.HasPrefix(lines[i+1], "$ ") || strings.HasPrefix(lines[i+1], "```") {
			continue
		}
		shown++
		want, err := trimAnswer(body)
		if err != nil {
			t.Errorf("README line %d: %v", i+1, err)
			continue
		}
		if lines[i+1] != want {
			if os.Getenv("TESSERA_UPDATE_README") == "1" {
				lines[i+1], changed = want, true
				continue
			}
			t.Errorf("README line %d is not the answer of %s:\n  README: %s\n  server: %s\n(TESSERA_UPDATE_README=1 go test ./internal/httpapi -run TestREADMEHTTPExamples rewrites it)", i+2, m[2], lines[i+1], want)
		}
	}
	if curls < 2 || shown < 1 {
		t.Errorf("%d curls, %d answers shown in README.md: is this still the README with the HTTP examples?", curls, shown)
	}
	if changed {
		if err := os.WriteFile(readmePath, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("README.md rewritten")
	}
}

// operationOf is the operationId the description routes req to.
func (sp spec) operationOf(t *testing.T, req *http.Request) string {
	t.Helper()
	r := req.Clone(context.Background())
	r.URL.Scheme, r.URL.Host = "http", "127.0.0.1:8080"
	route, _, err := sp.router.FindRoute(r)
	if err != nil {
		t.Fatalf("%s: %v", req.URL.Path, err)
	}
	return route.Operation.OperationID
}

// trimAnswer is an answer as the README shows it: /api/scrambles with
// each row cut to its batch, seq, state and length (the README says the
// rest are the columns of `results export`).
func trimAnswer(body []byte) (string, error) {
	var s httpapi.Scrambles
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return "", fmt.Errorf("the README shows answers of /api/scrambles only: %v", err)
	}
	rows := make([]string, len(s.Scrambles))
	for i, r := range s.Scrambles {
		b, err := json.Marshal(struct {
			BatchID int64  `json:"batch_id"`
			Seq     int64  `json:"seq"`
			State   string `json:"state"`
			Length  *int   `json:"length"`
		}{r.BatchID, r.Seq, r.State, r.Length})
		if err != nil {
			return "", err
		}
		rows[i] = strings.TrimSuffix(string(b), "}") + ",…}"
	}
	s.Scrambles = []store.Solution{}
	top, err := json.Marshal(s)
	if err != nil {
		return "", err
	}
	return strings.Replace(string(top), `"scrambles":[]`, `"scrambles":[`+strings.Join(rows, ",")+`]`, 1), nil
}
