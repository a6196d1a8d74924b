package queue

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/puzzle"
)

// The split search's side of JetStream (docs/ARCHITECTURE.md "Split
// search"): the bucket of coordination records, written by the state's
// coordinator by compare-and-set on the revision; the bucket of subtree
// answers, one create-only key per subtree, so that no two writers ever
// contend on one key; and the subtree jobs, on subjects of their own in
// TESSERA_JOBS with a consumer of their own, so that they never queue
// ahead of the quick lane's jobs nor of whole heavy jobs.

// SplitBucket is the key-value bucket of split searches' records (key:
// job.SplitKey).
const SplitBucket = "tessera-split"

// SplitAnswersBucket is the key-value bucket of subtree answers (key:
// job.AnswerKey, the record's key, the iteration and the subtree's index).
const SplitAnswersBucket = "tessera-split-answers"

// SplitConsumer is the durable consumer of subtree jobs, shared by every
// solverd; splitFilter its subjects, tessera.jobs.split.<kind>.<RxC>
// (five tokens: neither lane's filter matches them).
const (
	SplitConsumer = "solverd-split"
	splitFilter   = "tessera.jobs.split.*.*"
)

// ErrNoSplit is returned for a key the split bucket does not hold.
var ErrNoSplit = errors.New("no split record")

// SubtreeSubject is the subject of a subtree job of spec.
func SubtreeSubject(spec puzzle.Spec) string {
	return "tessera.jobs.split." + spec.Kind.String() + "." + dims(spec)
}

// Splits is the bucket of split searches' records and the publisher of
// their subtree jobs.
type Splits struct {
	js  jetstream.JetStream
	kv  jetstream.KeyValue
	ans jetstream.KeyValue // nil for a reader (ListSplits)
}

// OpenSplits opens the split buckets, creating them at c's replicas when
// they are missing.
func OpenSplits(ctx context.Context, js jetstream.JetStream, c Config) (*Splits, error) {
	kv, err := openKV(ctx, js, c, jetstream.KeyValueConfig{Bucket: SplitBucket,
		Description: "split searches: one coordination record per state"})
	if err != nil {
		return nil, err
	}
	ans, err := openKV(ctx, js, c, jetstream.KeyValueConfig{Bucket: SplitAnswersBucket,
		Description: "split searches: one answer per subtree"})
	if err != nil {
		return nil, err
	}
	return &Splits{js: js, kv: kv, ans: ans}, nil
}

// Get reads the record of key and its revision (ErrNoSplit when there
// is none). It asks the bucket's leader (the stream's message API, not
// a direct get, which any replica answers): a follower behind it during
// a failover would show an older record.
func (s *Splits) Get(ctx context.Context, key string) (job.SplitRecord, uint64, error) {
	data, rev, err := lastFresh(ctx, s.js, SplitBucket, key)
	if err != nil {
		return job.SplitRecord{}, 0, fmt.Errorf("split %s: %w", key, err)
	}
	r, err := job.DecodeSplitRecord(data)
	return r, rev, err
}

// jsNoMessageFound is JetStream's error code for a subject without a
// message (a stream or leader not found is another: those are errors).
const jsNoMessageFound = 10037

// lastFresh reads the value and revision of key in bucket from the
// leader of the bucket's stream; ErrNoSplit when the key has none (never
// written, deleted or purged).
func lastFresh(ctx context.Context, js jetstream.JetStream, bucket, key string) ([]byte, uint64, error) {
	req, err := json.Marshal(struct {
		LastBySubject string `json:"last_by_subj"`
	}{"$KV." + bucket + "." + key})
	if err != nil {
		return nil, 0, err
	}
	rctx, cancel := ctx, context.CancelFunc(func() {})
	if _, ok := ctx.Deadline(); !ok {
		rctx, cancel = context.WithTimeout(ctx, 5*time.Second)
	}
	defer cancel()
	m, err := js.Conn().RequestWithContext(rctx, "$JS.API.STREAM.MSG.GET."+BucketStream(bucket), req)
	if err != nil {
		return nil, 0, err
	}
	var resp struct {
		Message *struct {
			Seq     uint64 `json:"seq"`
			Headers []byte `json:"hdrs"`
			Data    []byte `json:"data"`
		} `json:"message"`
		Error *struct {
			Code        int    `json:"code"`
			ErrCode     int    `json:"err_code"`
			Description string `json:"description"`
		} `json:"error"`
	}
	if err := json.Unmarshal(m.Data, &resp); err != nil {
		return nil, 0, fmt.Errorf("read of %s: %w", bucket, err)
	}
	switch {
	case resp.Error != nil && resp.Error.ErrCode == jsNoMessageFound:
		return nil, 0, ErrNoSplit
	case resp.Error != nil:
		return nil, 0, fmt.Errorf("read of %s: %s (code %d, error %d)", bucket, resp.Error.Description, resp.Error.Code, resp.Error.ErrCode)
	case resp.Message == nil:
		return nil, 0, fmt.Errorf("read of %s: an answer without a message", bucket)
	}
	// A delete or purge leaves a marker with an operation header.
	if bytes.Contains(resp.Message.Headers, []byte("KV-Operation")) {
		return nil, 0, ErrNoSplit
	}
	return resp.Message.Data, resp.Message.Seq, nil
}

// Create stores r under its key unless a record is there already, and
// returns the record that is there (r, or the one another process made
// first: a redelivered parent job continues it).
func (s *Splits) Create(ctx context.Context, r job.SplitRecord) (job.SplitRecord, error) {
	key := job.SplitKey(r.Batch, r.Seq)
	data, err := json.Marshal(r)
	if err != nil {
		return r, fmt.Errorf("split %s: %w", key, err)
	}
	if _, err := s.kv.Create(ctx, key, data); err == nil {
		return r, nil
	} else if !errors.Is(err, jetstream.ErrKeyExists) {
		return r, fmt.Errorf("split %s: %w", key, err)
	}
	have, _, err := s.Get(ctx, key)
	return have, err
}

// Update applies change to the record of key by compare-and-set: when
// another process wrote first, it re-reads and applies change again, so
// change must be a pure function of the record (job's rules). It returns
// the record as stored and whether change changed it (false: nothing
// written).
func (s *Splits) Update(ctx context.Context, key string, change func(*job.SplitRecord) bool) (job.SplitRecord, bool, error) {
	for {
		r, rev, err := s.Get(ctx, key)
		if err != nil {
			return r, false, err
		}
		if !change(&r) {
			return r, false, nil
		}
		data, err := json.Marshal(r)
		if err != nil {
			return r, false, fmt.Errorf("split %s: %w", key, err)
		}
		_, err = s.kv.Update(ctx, key, data, rev)
		if err == nil {
			return r, true, nil
		}
		if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			return r, false, fmt.Errorf("split %s: %w", key, err)
		}
	}
}

// Answer stores a subtree's answer under its own key, create-only: the
// first answer to a subtree is the one counted, a second (a redelivered
// or republished job) is dropped here (false) and changes nothing.
func (s *Splits) Answer(ctx context.Context, key string, a job.SubtreeAnswer) (bool, error) {
	data, err := json.Marshal(a)
	if err != nil {
		return false, fmt.Errorf("answer %s: %w", job.AnswerKey(key, a.Iteration, a.Index), err)
	}
	ak := job.AnswerKey(key, a.Iteration, a.Index)
	_, err = s.ans.Create(ctx, ak, data)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, jetstream.ErrKeyExists):
		return false, nil
	default:
		return false, fmt.Errorf("answer %s: %w", ak, err)
	}
}

// Answered reports whether subtree index of iteration has an answer. It
// may be stale (any replica answers): a false one costs a search whose
// answer Answer then drops.
func (s *Splits) Answered(ctx context.Context, key string, iteration, index int) (bool, error) {
	_, err := s.ans.Get(ctx, job.AnswerKey(key, iteration, index))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return false, nil
	default:
		return false, fmt.Errorf("answer %s: %w", job.AnswerKey(key, iteration, index), err)
	}
}

// WatchAnswers reports every answer of iteration of key's search, those
// already stored first (then one update with CaughtUp), then each as it
// is stored. Stop it when done.
func (s *Splits) WatchAnswers(ctx context.Context, key string, iteration int) (*AnswerWatch, error) {
	w, err := s.ans.Watch(ctx, job.AnswerKey(key, iteration, -1))
	if err != nil {
		return nil, fmt.Errorf("watch answers of %s iteration %d: %w", key, iteration, err)
	}
	aw := &AnswerWatch{w: w, out: make(chan AnswerUpdate), done: make(chan struct{})}
	go aw.run()
	return aw, nil
}

// AnswerWatch follows the answers of one iteration of a split search.
type AnswerWatch struct {
	w    jetstream.KeyWatcher
	out  chan AnswerUpdate
	done chan struct{}
	once sync.Once
}

// AnswerUpdate is one answer a watch reports, decoded (Err: it does not
// decode; Key names it), or CaughtUp: every answer stored when the watch
// began has been reported.
type AnswerUpdate struct {
	Answer   job.SubtreeAnswer
	Key      string
	Err      error
	CaughtUp bool
}

// Updates delivers the watch's answers. It is closed when the watch ends:
// Stop, or its connection closed (a new watch replays every answer).
func (a *AnswerWatch) Updates() <-chan AnswerUpdate { return a.out }

// Stop ends the watch.
func (a *AnswerWatch) Stop() error {
	var err error
	a.once.Do(func() {
		close(a.done)
		err = a.w.Stop()
	})
	return err
}

// run decodes the watch's entries onto out until it ends; deletes and
// purges are not answers.
func (a *AnswerWatch) run() {
	defer close(a.out)
	for {
		var u AnswerUpdate
		select {
		case <-a.done:
			return
		case e, ok := <-a.w.Updates():
			switch {
			case !ok:
				return
			case e == nil:
				u.CaughtUp = true
			case e.Operation() != jetstream.KeyValuePut:
				continue
			default:
				u.Key = e.Key()
				u.Answer, u.Err = job.DecodeSubtreeAnswer(e.Value())
			}
		}
		select {
		case a.out <- u:
		case <-a.done:
			return
		}
	}
}

// PurgeAnswers removes every answer of key's search (its record has
// ended: nothing will count them again).
func (s *Splits) PurgeAnswers(ctx context.Context, key string) error {
	st, err := s.js.Stream(ctx, BucketStream(SplitAnswersBucket))
	if err == nil {
		err = st.Purge(ctx, jetstream.WithPurgeSubject("$KV."+SplitAnswersBucket+"."+key+".>"))
	}
	if err != nil {
		return fmt.Errorf("purge answers of %s: %w", key, err)
	}
	return nil
}

// PublishSubtree publishes a subtree job; its id makes a republished
// subtree of one generation one message while the stream's duplicate
// window remembers it (a new generation, after a stall, is a new
// message); its answer key counts it once whatever reaches the workers.
func (s *Splits) PublishSubtree(ctx context.Context, spec puzzle.Spec, sj job.SubtreeJob) error {
	data, err := json.Marshal(sj)
	if err != nil {
		return fmt.Errorf("subtree job %s: %w", sj.ID(), err)
	}
	if _, err := s.js.Publish(ctx, SubtreeSubject(spec), data, jetstream.WithMsgID(sj.ID()), jetstream.WithExpectStream(JobsStream)); err != nil {
		return fmt.Errorf("publish subtree job %s: %w", sj.ID(), err)
	}
	return nil
}

// EnsureSplitConsumer returns the consumer of subtree jobs, creating it
// with the jobs consumers' settings under c when it is missing.
func EnsureSplitConsumer(ctx context.Context, js jetstream.JetStream, c Config) (jetstream.Consumer, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	cc := jobsConsumerConfig(c, job.LaneHeavy, job.PriorityNormal)
	cc.Durable, cc.Description, cc.FilterSubject = SplitConsumer, "solverd workers: subtree jobs of split searches", splitFilter
	cons, err := findOrCreate(ctx, js, JobsStream, cc)
	if err != nil {
		return nil, fmt.Errorf("ensure consumer %s on %s: %w", cc.Durable, JobsStream, err)
	}
	return cons, nil
}

// ListSplits reads the records of batch's split searches (every batch's
// when batch is 0), by batch and sequence; none when no split search has
// run (the bucket is missing: it is not created by a reader).
func ListSplits(ctx context.Context, js jetstream.JetStream, batch int64) ([]job.SplitRecord, error) {
	kv, err := js.KeyValue(ctx, SplitBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", SplitBucket, err)
	}
	keys, err := kv.Keys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", SplitBucket, err)
	}
	s := &Splits{js: js, kv: kv}
	var out []job.SplitRecord
	for _, k := range keys {
		if batch != 0 && !strings.HasPrefix(k, strconv.FormatInt(batch, 10)+".") {
			continue
		}
		r, _, err := s.Get(ctx, k)
		if errors.Is(err, ErrNoSplit) {
			continue // deleted since the listing
		}
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b job.SplitRecord) int {
		return cmp.Or(cmp.Compare(a.Batch, b.Batch), cmp.Compare(a.Seq, b.Seq))
	})
	return out, nil
}
