package config

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// FileSuffix ends the variable that names a file holding a secret key's
// value: TESSERA_NATS_PASSWORD_FILE=/run/secrets/nats_password, as Docker
// and Kubernetes secrets are mounted, so the secret is in no process's
// environment. database.password has its own key for it
// (database.password_file).
const FileSuffix = "_FILE"

// secretFiles sets, for each secret key of used without a file key of its
// own, the first line of the file its *_FILE variable names. The value
// given another way as well is an error naming both.
func secretFiles(v *viper.Viper, fs *pflag.FlagSet, used func(key) bool) error {
	var errs []error
	for _, k := range keys {
		if k.kind != kindSecret || !used(k) || keyIndex(k.name+"_file") >= 0 {
			continue
		}
		env := EnvName(k.name) + FileSuffix
		path := os.Getenv(env)
		if path == "" {
			continue
		}
		flagSet := fs != nil && fs.Lookup(k.flag) != nil && fs.Lookup(k.flag).Changed
		if os.Getenv(EnvName(k.name)) != "" || flagSet {
			errs = append(errs, &KeyError{Key: k.name, Msg: fmt.Sprintf("given by %s and by %s or --%s: set one", env, EnvName(k.name), k.flag)})
			continue
		}
		val, err := readPasswordFile(path)
		if err != nil {
			errs = append(errs, &KeyError{Key: k.name, Msg: env + ": " + err.Error()})
			continue
		}
		v.Set(k.name, val)
	}
	return errors.Join(errs...)
}
