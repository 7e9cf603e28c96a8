package main

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/kvcheck/kvcheck/cmd/internal/configfile"
)

// stdinName is the --config path that reads the file from standard
// input, and stdinLabel what errors and the mapping call it.
const (
	stdinName  = "-"
	stdinLabel = "stdin"
)

// stdin is where --config - reads from (a test replaces it).
var stdin io.Reader = os.Stdin

// stdinConfig holds the standard input's configuration once read: a pipe
// can be read once, and sweep reads its --config file again after the
// search.
var stdinConfig struct {
	sync.Mutex
	read bool
	file *configfile.File
	err  error
}

// loadConfig is configfile.Load, with "-" reading the configuration from
// standard input (at most configfile.MaxFileBytes; the same file for
// every use in one run), so `show-config NAME | kvcheck check --config -`
// works.
func loadConfig(path string) (*configfile.File, error) {
	if path != stdinName {
		return configfile.Load(path)
	}
	stdinConfig.Lock()
	defer stdinConfig.Unlock()
	if !stdinConfig.read {
		stdinConfig.read = true
		if f, ok := stdin.(*os.File); ok {
			if info, err := f.Stat(); err == nil && info.Mode()&os.ModeCharDevice != 0 {
				stdinConfig.err = fmt.Errorf("%s is a terminal or a device, not a file; --config - reads a configuration file piped in (e.g. kvcheck show-config NAME | kvcheck check --config -)", stdinLabel)
				return nil, stdinConfig.err
			}
		}
		data, err := io.ReadAll(io.LimitReader(stdin, configfile.MaxFileBytes+1))
		switch {
		case err != nil:
			stdinConfig.err = fmt.Errorf("%s: %v", stdinLabel, err)
		case len(data) > configfile.MaxFileBytes:
			stdinConfig.err = fmt.Errorf("%s: more than the %d bytes a configuration file may have", stdinLabel, configfile.MaxFileBytes)
		case len(data) == 0:
			stdinConfig.err = fmt.Errorf("%s: empty; --config - reads the configuration file from standard input (e.g. kvcheck show-config NAME | kvcheck check --config -)", stdinLabel)
		default:
			stdinConfig.file, stdinConfig.err = configfile.Parse(stdinLabel, data)
		}
	}
	return stdinConfig.file, stdinConfig.err
}

// oneStdin reports a --config - given twice: standard input holds one
// file.
func oneStdin(configs []string) error {
	n := 0
	for _, c := range configs {
		if c == stdinName {
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("--config - (standard input) given %d times; standard input holds one configuration file", n)
	}
	return nil
}
