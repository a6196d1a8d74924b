package config

import "github.com/spf13/pflag"

// every is the set of all keys: the tests read the whole configuration
// the way a command reads its own keys.
var every = Uses("nats", "database", "solver", "results", "producer")

// Load reads every key from path (or the search path when empty) and the
// flags of fs set on the command line.
func Load(path string, fs *pflag.FlagSet) (Config, error) { return load(path, fs, nil) }

// BindFlags defines --config and the flag of every key on fs.
func BindFlags(fs *pflag.FlagSet) { every.Bind(fs) }
