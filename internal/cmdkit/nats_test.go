package cmdkit

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/queue"
)

// Dial retries setup until it works, then hands over a ready connection
// whose streams exist.
func TestDialRetriesSetup(t *testing.T) {
	url, _ := natstest.Server(t)
	c := config.Default().NATS
	c.URL = url
	tries, retried := 0, 0
	conn, err := Dial(context.Background(), c, "test", queue.Watch{}, func(ctx context.Context, cn *Conn) error {
		if tries++; tries < 3 {
			return errors.New("not yet")
		}
		return cn.Ensure(ctx)
	}, func(time.Duration, error) { retried++ })
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if tries != 3 || retried != 2 {
		t.Errorf("%d setups, %d retries; want 3 and 2", tries, retried)
	}
	if _, err := conn.JS.Stream(context.Background(), queue.JobsStream); err != nil {
		t.Errorf("the streams were not ensured: %v", err)
	}
}

// Settings the server refuses end Dial after a few tries, saying why
// and without the password; an unreachable server is waited for until
// the context ends.
func TestDialGivesUp(t *testing.T) {
	s := natstest.StartWith(t, func(o *server.Options) { o.Username, o.Password = "svc", "right-pw-77" })
	c := config.Default().NATS
	c.URL = s.ClientURL()
	c.User, c.Password = "svc", "wrong-pw-91"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ready := func(context.Context, *Conn) error { return nil }
	_, err := Dial(ctx, c, "test", queue.Watch{}, ready, func(time.Duration, error) {})
	if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), "refused 3 times") || strings.Contains(err.Error(), "wrong-pw-91") {
		t.Errorf("refused settings: %v", err)
	}

	c = config.Default().NATS
	c.URL = "nats://127.0.0.1:1" // nothing listens there
	ctx, cancel = context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	retried := 0
	if _, err := Dial(ctx, c, "test", queue.Watch{}, ready, func(time.Duration, error) { retried++ }); err == nil || ctx.Err() == nil || retried == 0 {
		t.Errorf("unreachable: %v after %d retries, ctx %v", err, retried, ctx.Err())
	}
}
