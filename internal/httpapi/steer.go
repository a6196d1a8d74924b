package httpapi

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tessera-solver/tessera/internal/httpauth"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/steer"
	"github.com/tessera-solver/tessera/internal/store"
)

// Steering is the server's link to the solvers through NATS: the
// connection the page's steering actions tell them on (internal/steer)
// and the registry its Workers view reads. Without it (WithSteering not
// given) the page says that NATS is not configured and offers no action.
type Steering struct {
	Dial    steer.Dial
	Workers func(context.Context) ([]queue.WorkerEntry, error)
	// ChunkSize is producer.chunk_size for requeued jobs (≤ 0: the
	// puzzle's default).
	ChunkSize int
}

// WithSteering lets writers cancel, pause, unpause and requeue batches
// from the page, and shows the workers.
func WithSteering(s Steering) Option { return func(srv *server) { srv.steering = &s } }

// Time limits of the steering work of one request.
const (
	steerTimeout   = 30 * time.Second
	workersTimeout = 3 * time.Second
)

// flashCookie carries the line saying what a steering action did from its
// POST to the page the browser is sent back to.
const flashCookie = "tessera_flash"

// steerActions are the POST /batches/{id}/{action} the page offers.
var steerActions = []string{string(steer.Cancel), string(steer.Pause), string(steer.Unpause), "requeue"}

// noNATS is what the page and the API say without Steering.
const noNATS = "NATS is not configured for this server: steering and the workers view need it (results serve connects with the nats.* settings)"

// steerPost is POST /batches/{id}/{action}: a writer (a writer's token,
// or a writer's session with the session's CSRF token in the form)
// changes the batch's course with internal/steer, as the CLI does; the
// browser is sent back to the batch with a line saying what happened.
// Everyone else gets 403, and so does a request from another origin.
func (s *server) steerPost(w http.ResponseWriter, r *http.Request) {
	actor := httpauth.ActorOf(r.Context())
	if actor == "" {
		http.Error(w, "forbidden: steering a batch "+httpauth.ErrNoWriter.Error()+"; log in with one", http.StatusForbidden)
		return
	}
	if err := httpauth.CheckPost(w, r); err != nil {
		s.log.Warn("steer refused", "by", actor, "path", r.URL.Path, "err", err)
		http.Error(w, "forbidden: "+err.Error(), http.StatusForbidden)
		return
	}
	id, err := batchID(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	action := r.PathValue("action")
	if !slices.Contains(steerActions, action) {
		http.Error(w, fmt.Sprintf("no such action %q: want one of %s", action, strings.Join(steerActions, ", ")), http.StatusNotFound)
		return
	}
	back := fmt.Sprintf("/?batch=%d", id)
	if s.steering == nil {
		setFlash(w, false, noNATS)
		http.Redirect(w, r, back, http.StatusSeeOther)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), steerTimeout)
	defer cancel()
	var msg string
	if action == "requeue" {
		msg, err = s.requeue(ctx, r, id)
	} else {
		var out steer.Outcome
		out, err = steer.Do(ctx, s.st, s.steering.Dial, steer.Action(action), id)
		msg = out.String()
	}
	if err != nil {
		// The line names no token: the actor is a writer's name.
		s.log.Warn("steer", "action", action, "batch", id, "by", actor, "err", err)
		setFlash(w, false, err.Error())
	} else {
		s.log.Info("steer", "action", action, "batch", id, "by", actor, "outcome", msg)
		setFlash(w, true, msg)
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// requeue reads the requeue form (status, repeated; timeout; budget_nodes)
// and requeues.
func (s *server) requeue(ctx context.Context, r *http.Request, batch int64) (string, error) {
	req := steer.Requeue{Batch: batch, ChunkSize: s.steering.ChunkSize}
	for _, v := range r.PostForm["status"] {
		req.Statuses = append(req.Statuses, result.Status(v))
	}
	if v := strings.TrimSpace(r.PostForm.Get("timeout")); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return "", fmt.Errorf("%w: timeout %q is not a duration such as 30s or 5m", steer.ErrUsage, v)
		}
		req.Timeout = d
	}
	if v := strings.TrimSpace(r.PostForm.Get("budget_nodes")); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return "", fmt.Errorf("%w: node budget %q is not a positive whole number", steer.ErrUsage, v)
		}
		req.MaxNodes = n
	}
	done, err := steer.Solve(ctx, s.st, s.steering.Dial, req)
	msg := done.Line(req)
	if done.Uncancelled {
		msg = fmt.Sprintf("batch %d is no longer cancelled; %s", batch, msg)
		if err != nil {
			err = fmt.Errorf("batch %d is no longer cancelled, but: %w", batch, err)
		}
	}
	return msg, err
}

// setFlash sets the line the next page shows once.
func setFlash(w http.ResponseWriter, ok bool, msg string) {
	kind := "err:"
	if ok {
		kind = "ok:"
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: base64.RawURLEncoding.EncodeToString([]byte(kind + shorten(msg, 600))),
		Path: "/", MaxAge: 60, HttpOnly: true, SameSite: http.SameSiteStrictMode})
}

// takeFlash reads the line setFlash left, and clears it.
func takeFlash(w http.ResponseWriter, r *http.Request) *pageFlash {
	c, err := r.Cookie(flashCookie)
	if err != nil {
		return nil
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	b, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil {
		return nil
	}
	if msg, ok := strings.CutPrefix(string(b), "ok:"); ok {
		return &pageFlash{Msg: msg}
	}
	if msg, ok := strings.CutPrefix(string(b), "err:"); ok {
		return &pageFlash{Msg: msg, Err: true}
	}
	return nil
}

// pageFlash is the line saying what a steering action did.
type pageFlash struct {
	Msg string
	Err bool
}

// Workers is the body of /api/workers: the live processes of the
// registry (queue.WorkersBucket), as `solverd workers --json` prints
// them.
type Workers struct {
	Workers []queue.WorkerEntry `json:"workers"`
}

func (s *server) workers(w http.ResponseWriter, r *http.Request) {
	if s.steering == nil {
		writeJSON(w, http.StatusServiceUnavailable, apiError{Error: noNATS})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), workersTimeout)
	defer cancel()
	ws, err := s.steering.Workers(ctx)
	if err != nil {
		s.errs.log(slog.LevelWarn, "workers", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, apiError{Error: "workers: " + err.Error()})
		return
	}
	if ws == nil {
		ws = []queue.WorkerEntry{}
	}
	writeJSON(w, http.StatusOK, Workers{Workers: ws})
}

// Throughput is the body of /api/batches/{id}/throughput: the batch's rows
// stored per minute, oldest first, over the minutes up to its newest row
// (store.Throughput).
type Throughput struct {
	BatchID int64          `json:"batch_id"`
	Minutes []store.Minute `json:"minutes"`
}

// DefaultThroughputMinutes is the window of /api/batches/{id}/throughput
// without ?minutes and of the page's sparkline.
const DefaultThroughputMinutes = 60

func (s *server) throughput(w http.ResponseWriter, r *http.Request) {
	id, err := batchID(r)
	if err != nil {
		badRequest(w, err)
		return
	}
	minutes, err := intParam(r, "minutes", DefaultThroughputMinutes, 1, store.MaxThroughputMinutes)
	if err != nil {
		badRequest(w, err)
		return
	}
	queryJSON(s, w, r, func(ctx context.Context) ([]store.Minute, error) {
		// A batch that does not exist is a 404, not an empty series.
		if _, err := s.st.BatchProgress(ctx, id); err != nil {
			return nil, err
		}
		return s.st.Throughput(ctx, id, minutes)
	}, func(ms []store.Minute) any {
		if ms == nil {
			ms = []store.Minute{}
		}
		return Throughput{BatchID: id, Minutes: ms}
	})
}

// pageWorker is one registered process as the page shows it.
type pageWorker struct {
	queue.WorkerEntry
	Started string
	Up      string
	Lanes   string
	Tables  string // role=set, ...
	Rate    string // nodes/s
	Jobs    []pageJob
}

type pageJob struct {
	queue.JobInFlight
	First   int64  // the first state's number as the producer counted it (seq+1)
	Running string // for how long
}

func newPageWorker(e queue.WorkerEntry, now time.Time) pageWorker {
	p := pageWorker{WorkerEntry: e, Started: e.Started.UTC().Format("2006-01-02 15:04:05"),
		Up: e.Up().Round(time.Second).String(), Lanes: strings.Join(e.Lanes, ", "),
		Rate: strconv.FormatFloat(e.NodesPerSecond, 'f', 0, 64)}
	var ts []string
	for role, set := range e.TableSets {
		ts = append(ts, role+": "+set)
	}
	slices.Sort(ts)
	p.Tables = strings.Join(ts, "; ")
	for _, j := range e.Jobs {
		p.Jobs = append(p.Jobs, pageJob{JobInFlight: j, First: j.FirstSeq + 1, Running: now.Sub(j.Started).Round(time.Second).String()})
	}
	return p
}

// pageSteer is what the selected batch's steering controls offer.
type pageSteer struct {
	Pause, Unpause, Cancel bool
	Requeue                []pageRequeue // statuses with rows to solve again
}

type pageRequeue struct {
	Status  string
	Count   int64
	Checked bool
}

func newPageSteer(b store.Batch) pageSteer {
	open := b.FinishedAt == nil && b.CancelledAt == nil
	p := pageSteer{Pause: open && b.PausedAt == nil, Unpause: b.PausedAt != nil, Cancel: open}
	for _, st := range steer.Requeueable {
		var n int64
		switch st {
		case result.StatusBudgetExceeded:
			n = b.BudgetExceeded
		case result.StatusFailed:
			n = b.Failed
		case result.StatusCancelled:
			n = b.Cancelled
		}
		if n > 0 {
			// Cancelled rows are solved again only when asked for.
			p.Requeue = append(p.Requeue, pageRequeue{Status: string(st), Count: n, Checked: st != result.StatusCancelled || b.CancelledAt != nil})
		}
	}
	return p
}
