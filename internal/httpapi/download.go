package httpapi

import (
	"bufio"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
)

// Downloads of a batch's rows and dead letters (the status page links
// them). Both stream from the database to the client: a batch of millions
// of rows never sits in memory, and each write pushes the connection's
// write deadline a minute on, so a long download is not cut by the
// server's WriteTimeout while a stalled client still is.
//
//	GET /api/batches/{id}/rows?format=csv|jsonl[&status=S[,S]]   as `results export --batch`
//	GET /api/batches/{id}/dead?format=csv|jsonl                   DeadColumns; payload as text, or base64 when not UTF-8

// DeadColumns are the columns of a dead-letter download, its CSV header
// and JSONL keys. payload holds the original payload when it is UTF-8
// text, else payload_base64 holds it.
var DeadColumns = []string{"id", "batch_id", "seq", "job_id", "source", "reason", "created_at", "payload", "payload_base64"}

// downloadWriter extends the write deadline on every write.
type downloadWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (d downloadWriter) Write(p []byte) (int, error) {
	_ = d.rc.SetWriteDeadline(time.Now().Add(time.Minute)) // unsupported by some writers (tests): the server's timeout then holds
	return d.w.Write(p)
}

func (s *server) download(w http.ResponseWriter, r *http.Request, kind string) (id int64, f store.Format, out downloadWriter, ok bool) {
	id, err := batchID(r)
	if err == nil {
		f, err = store.ParseFormat(r.URL.Query().Get("format"))
		if err != nil {
			err = paramError{"format", errors.New("want csv or jsonl")}
		}
	}
	if err != nil {
		badRequest(w, err)
		return 0, "", downloadWriter{}, false
	}
	ctype := "text/csv; charset=utf-8"
	if f == store.FormatJSONL {
		ctype = "application/x-ndjson"
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="batch-%d-%s.%s"`, id, kind, f))
	return id, f, downloadWriter{w: w, rc: http.NewResponseController(w)}, true
}

func (s *server) downloadRows(w http.ResponseWriter, r *http.Request) {
	q := store.ExportQuery{}
	if v := r.URL.Query().Get("status"); v != "" {
		for _, st := range strings.Split(v, ",") {
			if !result.Status(st).Valid() {
				badRequest(w, paramError{"status", fmt.Errorf("%q: want one of %s", st, result.StatusNames())})
				return
			}
			q.Statuses = append(q.Statuses, st)
		}
	}
	id, f, out, ok := s.download(w, r, "rows")
	if !ok {
		return
	}
	q.Batch = id
	// The request's own context, not queryTimeout: a big batch takes
	// longer than a page query, and a client that leaves cancels it.
	if err := s.st.ExportRows(r.Context(), q, out, f); err != nil {
		s.downloadFailed(w, r, err)
	}
}

func (s *server) downloadDead(w http.ResponseWriter, r *http.Request) {
	id, f, out, ok := s.download(w, r, "dead")
	if !ok {
		return
	}
	ctx := r.Context()
	if _, err := s.st.BatchProgress(ctx, id); err != nil {
		s.downloadFailed(w, r, err)
		return
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	var cw *csv.Writer
	var enc *json.Encoder
	if f == store.FormatCSV {
		cw = csv.NewWriter(bw)
		_ = cw.Write(DeadColumns)
	} else {
		enc = json.NewEncoder(bw)
	}
	rec := make([]string, len(DeadColumns))
	err := s.st.EachDeadLetter(ctx, id, 0, 0, func(d *store.DeadLetter) error {
		text, b64 := payloadText(d.Payload)
		if cw != nil {
			rec[0], rec[1], rec[2] = strconv.FormatInt(d.ID, 10), optInt(d.BatchID), optInt(d.Seq)
			rec[3], rec[4], rec[5] = d.JobID, d.Source, d.Reason
			rec[6], rec[7], rec[8] = d.CreatedAt.UTC().Format(time.RFC3339Nano), text, b64
			return cw.Write(rec)
		}
		v := struct {
			*store.DeadLetter
			Payload       *string `json:"payload"`
			PayloadBase64 *string `json:"payload_base64"`
		}{DeadLetter: d}
		if b64 != "" {
			v.PayloadBase64 = &b64
		} else {
			v.Payload = &text
		}
		return enc.Encode(v)
	})
	if cw != nil {
		cw.Flush()
		if err == nil {
			err = cw.Error()
		}
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		s.downloadFailed(w, r, err)
	}
}

// downloadFailed answers an error before anything was sent, or else logs
// it: the client then has a truncated file, which a CSV or JSONL reader
// sees as a short last line or a missing end.
func (s *server) downloadFailed(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, store.ErrNotFound) {
		w.Header().Del("Content-Disposition")
		writeJSON(w, http.StatusNotFound, apiError{Error: err.Error()})
		return
	}
	if r.Context().Err() != nil {
		return // the client left
	}
	s.errs.log(slog.LevelError, "download failed", "path", r.URL.Path, "err", err)
	w.Header().Del("Content-Disposition")
	writeJSON(w, http.StatusInternalServerError, apiError{Error: err.Error()}) // ignored once the body started
}

func payloadText(p []byte) (text, b64 string) {
	if utf8.Valid(p) {
		return string(p), ""
	}
	return "", base64.StdEncoding.EncodeToString(p)
}

func optInt(p *int64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatInt(*p, 10)
}
