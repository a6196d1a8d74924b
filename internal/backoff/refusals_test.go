package backoff

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// Retry with a Refusals gives up on the RefusedTries-th refusal in a row;
// an outage in between starts the count again, and success ends it.
func TestRefusals(t *testing.T) {
	refused, down := errors.New("authorization violation"), errors.New("connection refused")
	outcomes := []error{refused, refused, down, refused, refused, refused, nil}
	r := Refusals{Refused: func(err error) bool { return errors.Is(err, refused) }, Hint: "check the password"}
	calls := 0
	err := Retry(context.Background(), Policy{Min: time.Microsecond}, func() error {
		calls++
		return r.Check(outcomes[calls-1])
	}, nil)
	if calls != 6 || !errors.Is(err, refused) || !r.Exhausted() ||
		err.Error() != "authorization violation (refused 3 times in a row: check the password)" {
		t.Fatalf("gave up after %d attempts with %v", calls, err)
	}
	var none Refusals // no classifier: retries for ever
	for range 10 {
		if err := none.Check(refused); !strings.Contains(err.Error(), "authorization") || none.Exhausted() {
			t.Fatal(err)
		}
	}
}
