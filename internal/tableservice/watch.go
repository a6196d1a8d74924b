// Package tableservice keeps the table sets of a running solverd current:
// it pulls missing tables from the JetStream Object Store bucket at start,
// rescans the tables directory (and the bucket) while running, checks what
// arrives and hands the better sets to the solver without a restart.
package tableservice

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/metrics"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/internal/tablestore"
	"github.com/tessera-solver/tessera/tables"
	"github.com/tessera-solver/tessera/tables/catalog"
)

// Watch starts the table watch of solverd run, which rescans every
// solver.tables_rescan (0: it only records the sets in use in obs), and
// returns what stops it and waits until it has.
func Watch(ctx context.Context, cfg config.Config, live *solve.Live, log *slog.Logger, obs *metrics.Solver, p *cmdkit.Presence) (stop func()) {
	w := newTableWatch(cfg.Solver.TablesDir, cfg.Solver.Tables, cfg.Solver.TablesPrivate, live, log, obs)
	w.presence = p
	w.record(live.Loaded())
	if cfg.Solver.TablesRescan <= 0 {
		return func() {}
	}
	if cfg.Solver.TablesBucket != "" {
		if want, err := bucketWant(cfg.Solver.Tables); err == nil { // else loading the tables failed already
			w.withBucket(cfg.Solver.TablesBucket, want, func(ctx context.Context) (*tablestore.Store, func(), error) {
				return OpenBucket(ctx, cfg)
			})
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.run(ctx, cfg.Solver.TablesRescan)
	}()
	return func() {
		cancel()
		<-done
	}
}

// tableWatch keeps the table sets of a running solverd current: tables
// built into its directory (by `solverd tables build` in another process,
// which writes atomically) or put into its bucket after it started are
// pulled, checked and served from the next solve on, without a restart.
//
// A table that arrives while running is checked fully (header, identity
// and payload checksum: a read of the whole file, in the background) before
// it is used; the sets loaded at start had their headers checked. A refused file is logged once per version (size and
// modification time; for a bucket object, its digest) and its set passed
// over, so the puzzle keeps the set (or the built-in search) it had.
type tableWatch struct {
	dir, want string
	private   bool
	live      *solve.Live
	log       *slog.Logger
	obs       *metrics.Solver  // nil: no metrics
	presence  *cmdkit.Presence // nil: not registered

	// The bucket side (open nil: no bucket). pullWant is the files to
	// pull (nil: every table in the bucket).
	bucket    string
	open      func(context.Context) (*tablestore.Store, func(), error)
	pullWant  map[string]bool
	store     *tablestore.Store
	closeConn func()
	changes   <-chan struct{}
	stopWatch func() error

	checked  map[string]fileCheck // by path: the last version checked
	refused  map[string]string    // bucket object name → digest refused
	inUse    string               // the versions of the files in use (key)
	warnings map[string]string    // what → last transient error logged
	roles    []string             // every role a catalogue set serves
}

// fileCheck is the outcome of checking one version of a table file.
type fileCheck struct {
	size int64
	mod  time.Time
	err  error
}

// newTableWatch watches for tables better than those live serves now,
// which are taken as checked.
func newTableWatch(dir, want string, private bool, live *solve.Live, log *slog.Logger, obs *metrics.Solver) *tableWatch {
	w := &tableWatch{dir: dir, want: want, private: private, live: live, log: log, obs: obs,
		checked: map[string]fileCheck{}, refused: map[string]string{}, warnings: map[string]string{}}
	for _, s := range catalog.Sets() {
		for _, r := range s.Roles() {
			if !slices.Contains(w.roles, r) {
				w.roles = append(w.roles, r)
			}
		}
	}
	slices.Sort(w.roles)
	l := live.Loaded()
	for _, name := range l.Sets {
		set, _ := catalog.LookupSet(name)
		for _, t := range set.Tables {
			if fi, err := os.Stat(t.Path(dir)); err == nil {
				w.checked[t.Path(dir)] = fileCheck{size: fi.Size(), mod: fi.ModTime()}
			}
		}
	}
	w.inUse = w.key(l)
	w.record(l)
	return w
}

// withBucket makes w pull from bucket too: every table in it, or only the
// files of want (fileNames).
func (w *tableWatch) withBucket(bucket string, want map[string]bool, open func(context.Context) (*tablestore.Store, func(), error)) {
	w.bucket, w.pullWant, w.open = bucket, want, open
}

// run scans every interval, and at once when the bucket signals a new
// table, until ctx ends.
func (w *tableWatch) run(ctx context.Context, every time.Duration) {
	defer w.closeBucket()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		w.scan(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case _, ok := <-w.changes:
			if !ok { // the watch ended: reopen at the next scan
				w.closeBucket()
			}
		}
	}
}

// scan pulls what the bucket has that the directory lacks, then serves
// the best sets the directory now holds, if they differ from those in use.
func (w *tableWatch) scan(ctx context.Context) {
	if w.open != nil {
		w.pull(ctx)
	}
	l, err := solve.Choose(w.dir, w.want, w.private, w.usable)
	if err != nil {
		// A named set lost or damaged since start: keep what is mapped.
		// usable has logged a damaged file already.
		if !errors.Is(err, tables.ErrBadTable) {
			w.warnOnce("choose", "table sets unchanged: the configured set fails its check", err)
		}
		return
	}
	w.recovered("choose")
	key := w.key(l)
	if key == w.inUse {
		return // l was never used, so nothing of it is mapped
	}
	old := w.live.Loaded()
	w.live.Swap(l)
	w.inUse = key
	for _, r := range w.roles {
		if was, now := setOf(old, r), setOf(l, r); was != now {
			w.log.Info("table set now in use", "role", r, "set", now, "was", was, "tables_dir", w.dir)
		}
	}
	w.record(l)
}

func setOf(l *solve.Loaded, role string) string {
	if s := l.Roles[role]; s != "" {
		return s
	}
	return "none"
}

func (w *tableWatch) record(l *solve.Loaded) {
	if w.obs == nil && w.presence == nil {
		return
	}
	roles := map[string]string{}
	for _, r := range w.roles {
		roles[r] = setOf(l, r)
	}
	if w.obs != nil {
		w.obs.TableSets(roles)
	}
	w.presence.SetTableSets(roles)
}

// key names the sets of l and the version of each of their files: a set
// whose file is replaced (rebuilt, or an optional table added) is loaded
// anew.
func (w *tableWatch) key(l *solve.Loaded) string {
	var b strings.Builder
	for _, name := range l.Sets {
		set, _ := catalog.LookupSet(name)
		fmt.Fprintf(&b, "%s:", name)
		for _, t := range set.Tables {
			if c, ok := w.checked[t.Path(w.dir)]; ok {
				fmt.Fprintf(&b, " %s/%d/%d", t.Meta.FileName(), c.size, c.mod.UnixNano())
			}
		}
		b.WriteString(";")
	}
	return b.String()
}

// usable checks every present table of set fully, once per file version,
// and logs a refusal once.
func (w *tableWatch) usable(set catalog.Set) error {
	for _, t := range set.Tables {
		path := t.Path(w.dir)
		fi, err := os.Stat(path)
		if errors.Is(err, os.ErrNotExist) && t.Optional {
			delete(w.checked, path)
			continue
		}
		if err != nil {
			return fmt.Errorf("table set %s: %w", set.Name, err)
		}
		c, ok := w.checked[path]
		if !ok || c.size != fi.Size() || !c.mod.Equal(fi.ModTime()) {
			c = fileCheck{size: fi.Size(), mod: fi.ModTime()}
			var tb *tables.Table
			if tb, c.err = tables.Open(path, t.Meta, true); c.err == nil {
				c.err = tb.Close()
			}
			w.checked[path] = c
			if c.err != nil {
				w.log.Error("table refused; serving with the tables in use", "file", path, "err", c.err)
			}
		}
		if c.err != nil {
			return c.err
		}
	}
	return nil
}

// pull downloads the wanted tables the bucket has and the directory
// lacks. Pull checks each fully before it takes its name; one it refuses
// is logged once per upload (digest) and not fetched again until another
// upload replaces it.
func (w *tableWatch) pull(ctx context.Context) {
	if w.store == nil {
		st, closeConn, err := w.open(ctx)
		if err != nil {
			w.warnOnce("bucket", "cannot reach the table bucket; using local tables", err)
			return
		}
		w.store, w.closeConn = st, closeConn
		if w.changes, w.stopWatch, err = st.Changes(ctx); err != nil {
			// Rescans still pull, only later.
			w.warnOnce("watch", "cannot watch the table bucket; new tables arrive at the next rescan", err)
		} else {
			w.recovered("watch")
		}
	}
	objs, err := w.store.List(ctx)
	if err != nil {
		w.warnOnce("bucket", "cannot list the table bucket; using local tables", err)
		w.closeBucket() // reconnect at the next scan
		return
	}
	w.recovered("bucket")
	for _, o := range objs {
		local := filepath.Join(w.dir, o.Name)
		// A local file that was refused is replaced by the bucket's copy,
		// which Pull checks before it takes the name.
		have := exists(local) && w.checked[local].err == nil
		if w.pullWant != nil && !w.pullWant[o.Name] || have || w.refused[o.Name] == o.Digest && o.Digest != "" {
			continue
		}
		path, err := w.store.Pull(ctx, w.dir, o.Name)
		if errors.Is(err, tables.ErrBadTable) {
			w.refused[o.Name] = o.Digest
			name := o.Table
			if name == "" {
				name = o.Name
			}
			w.log.Error("table in the bucket refused; serving with the tables in use", "object", o.Name, "bucket", w.bucket, "err", err,
				"fix", fmt.Sprintf("push a good copy with `solverd tables push %s` from a host where `solverd tables verify` passes", name))
			continue
		}
		if err != nil {
			w.warnOnce("pull "+o.Name, "table pull failed; retrying at the next rescan", err)
			continue
		}
		w.recovered("pull " + o.Name)
		if fi, err := os.Stat(path); err == nil { // Pull checked it: no second read
			w.checked[path] = fileCheck{size: fi.Size(), mod: fi.ModTime()}
		}
		w.log.Info("pulled table", "file", path, "bucket", w.bucket, "bytes", o.Size)
	}
}

func (w *tableWatch) closeBucket() {
	if w.stopWatch != nil {
		_ = w.stopWatch() // the connection closes next, which ends it anyway
	}
	if w.closeConn != nil {
		w.closeConn()
	}
	w.store, w.closeConn, w.changes, w.stopWatch = nil, nil, nil, nil
}

// warnOnce logs a transient failure of what once until it succeeds again
// or fails differently: a rescan every 30 s must not repeat it.
func (w *tableWatch) warnOnce(what, msg string, err error) {
	if w.warnings[what] == err.Error() || errors.Is(err, context.Canceled) {
		// A stop cuts a pull or a list short: not a failure to report.
		return
	}
	w.warnings[what] = err.Error()
	w.log.Warn(msg, "err", err)
}

func (w *tableWatch) recovered(what string) { delete(w.warnings, what) }
