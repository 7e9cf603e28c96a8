package main

import "fmt"

// validateRunFlags checks the flags check and fuzz share, the same way
// for both: at least one worker, --rewrite only with --out, and an --out
// directory that can be written, checked before the search rather than
// after it.
func validateRunFlags(workers int, out string, rewrite bool) error {
	if workers < 1 {
		return fmt.Errorf("--workers must be at least 1, got %d", workers)
	}
	if rewrite && out == "" {
		return fmt.Errorf("--rewrite replaces transcripts that --out DIR writes; give --out DIR with it")
	}
	if out != "" {
		if err := checkWritableDir(out); err != nil {
			return fmt.Errorf("--out %s: %v", quote(out), err)
		}
	}
	return nil
}
