package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
)

// SearchPath is where a config file is looked for, in order, when neither
// --config nor TESSERA_CONFIG names one: the working directory, the
// user's configuration directory ($XDG_CONFIG_HOME, else ~/.config), then
// the host's.
func SearchPath() []string {
	out := []string{DefaultFile}
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".config")
		}
	}
	if dir != "" {
		out = append(out, filepath.Join(dir, "tessera", DefaultFile))
	}
	return append(out, filepath.Join(systemDir, "tessera", DefaultFile))
}

// systemDir holds the host's configuration (a variable for the tests).
var systemDir = "/etc"

// File is the config file Load reads for fs, and why: "--config",
// EnvPrefix+"_CONFIG", or "found" (the first of SearchPath that exists).
// path is "" when there is none: defaults, TESSERA_* variables and flags
// only.
func File(fs *pflag.FlagSet) (path, why string) {
	if fs != nil {
		if f := fs.Lookup(ConfigFlag); f != nil && f.Changed && f.Value.String() != "" {
			return f.Value.String(), "--" + ConfigFlag
		}
	}
	if p := os.Getenv(EnvPrefix + "_CONFIG"); p != "" {
		return p, EnvPrefix + "_CONFIG"
	}
	for _, p := range SearchPath() {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, "found"
		}
	}
	return "", ""
}

// Describe is the line a service logs once at start: which config file it
// read, or that it found none and where it looked.
func Describe(fs *pflag.FlagSet) string {
	path, why := File(fs)
	switch why {
	case "":
		return "no config file found (looked for " + strings.Join(SearchPath(), ", ") + "); using defaults and " + EnvPrefix + "_* variables"
	case "found":
		return "config file " + path
	}
	return fmt.Sprintf("config file %s (from %s)", path, why)
}

// nearest is the known key closest to name by edit distance, when it is
// close enough to be what was meant (a typo), else "".
func nearest(name string) string {
	best, bestD := "", len(name)/3+1
	for _, k := range keys {
		if d := editDistance(name, k.name); d < bestD {
			best, bestD = k.name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// unknownKeyError names the unknown keys of file, each with the known key
// it most likely meant.
func unknownKeyError(file string, unknown []string) error {
	parts := make([]string, len(unknown))
	hinted := true
	for i, u := range unknown {
		parts[i] = fmt.Sprintf("%q", u)
		if n := nearest(u); n != "" {
			parts[i] += " (did you mean " + n + "?)"
		} else {
			hinted = false
		}
	}
	msg := fmt.Sprintf("config file %s: unknown key %s", file, strings.Join(parts, ", "))
	if !hinted {
		msg += " (known keys: " + strings.Join(Keys(), ", ") + ")"
	}
	return fmt.Errorf("%s", msg)
}

// Origin is one key's effective value and where it came from, as
// `solverd config show` prints it.
type Origin struct {
	Key string `json:"key"`
	// Value is as loaded, secrets masked and URLs without credentials.
	Value string `json:"value"`
	// Source: "default", "file PATH", "env TESSERA_…" (or its _FILE
	// variable, for a secret read from a file), or "flag --…".
	Source string `json:"source"`
}

// Explain loads the configuration of s's keys as Load does and says, for
// each, its value and where it came from.
func (s Set) Explain(fs *pflag.FlagSet) ([]Origin, error) {
	c, v, path, err := loadFrom("", fs, s.names)
	if err != nil {
		return nil, err
	}
	shown := c.Redacted()
	var out []Origin
	for _, k := range keys {
		if !s.names[k.name] {
			continue
		}
		o := Origin{Key: k.name, Value: fmt.Sprint(derefAny(k.get(&shown))), Source: "default"}
		switch {
		case fs != nil && fs.Lookup(k.flag) != nil && fs.Lookup(k.flag).Changed:
			o.Source = "flag --" + k.flag
		case os.Getenv(EnvName(k.name)) != "":
			o.Source = "env " + EnvName(k.name)
		case k.kind == kindSecret && os.Getenv(EnvName(k.name)+FileSuffix) != "":
			o.Source = "env " + EnvName(k.name) + FileSuffix
		case path != "" && v.InConfig(k.name):
			o.Source = "file " + path
		}
		out = append(out, o)
	}
	return out, nil
}
