package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/viper"
)

// durationHint ends every refusal of a duration without a unit.
const durationHint = "a duration needs one, e.g. 30s, 500ms or 2m"

// bareNumber reports whether raw, a value a duration key was given, is a
// number without a unit other than zero: YAML and JSON numbers would
// otherwise decode as nanoseconds (solver.timeout: 10 is 10 ns), while
// "0" means the same in every unit.
func bareNumber(raw any) (string, bool) {
	switch x := raw.(type) {
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		s := fmt.Sprint(x)
		return s, s != "0"
	case string:
		s := strings.TrimSpace(x)
		f, err := strconv.ParseFloat(s, 64)
		return s, err == nil && f != 0
	}
	return "", false
}

func noUnit(s string) string {
	return fmt.Sprintf("%s has no unit (it would be %s ns): %s", s, s, durationHint)
}

// checkDurations refuses a duration key holding a bare number, naming the
// key; v holds every source merged (file, environment, flags).
func checkDurations(v *viper.Viper) error {
	var errs []error
	var d Config
	for _, k := range keys {
		if _, ok := k.get(&d).(*time.Duration); !ok {
			continue
		}
		if s, bare := bareNumber(v.Get(k.name)); bare {
			errs = append(errs, &KeyError{Key: k.name, Msg: noUnit(s)})
		}
	}
	return errors.Join(errs...)
}

// durationFlag is a --flag of a duration key: pflag's own accepts "10"
// only to fail with "missing unit"; this one says what to write.
type durationFlag time.Duration

// String is "0" for zero, which pflag's --help leaves out as it does
// for its own durations' "0s".
func (d *durationFlag) String() string {
	if *d == 0 {
		return "0"
	}
	return time.Duration(*d).String()
}

func (d *durationFlag) Type() string { return "duration" } // viper decodes it as one

func (d *durationFlag) Set(s string) error {
	if _, bare := bareNumber(s); bare {
		return errors.New(noUnit(s))
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%w: %s", err, durationHint)
	}
	*d = durationFlag(v)
	return nil
}
