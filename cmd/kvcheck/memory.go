package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kvcheck/kvcheck/model"
)

// defaultMemoryShare is the share of the machine's memory a check may use
// when --max-memory is not given.
const defaultMemoryShare = "75%"

// parseMemory reads a --max-memory value: bytes with an optional unit (KiB,
// MiB, GiB, TiB, or KB, MB, GB, TB in powers of ten), or a percentage of
// the machine's memory. "0" means no limit.
func parseMemory(s string) (int64, error) {
	v := strings.TrimSpace(s)
	if pct, ok := strings.CutSuffix(v, "%"); ok {
		p, err := strconv.ParseFloat(pct, 64)
		if err != nil || p <= 0 || p > 100 {
			return 0, fmt.Errorf("--max-memory %q: want a percentage in (0, 100]", s)
		}
		total := model.MachineMemory()
		if total == 0 {
			return 0, fmt.Errorf("--max-memory %q: cannot read this machine's memory; give a size such as 8GiB", s)
		}
		return int64(float64(total) * p / 100), nil
	}
	units := []struct {
		suffix string
		scale  float64
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1},
	}
	scale := 1.0
	for _, u := range units {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			v, scale = strings.TrimSpace(n), u.scale
			break
		}
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("--max-memory %q: want a size such as 8GiB or 512MiB, or a percentage such as 75%%", s)
	}
	return int64(n * scale), nil
}

// incompleteReason says why a search stopped before it was complete for a
// reason other than its bounds, or "" when it did not.
func incompleteReason[A any](res model.Result[A], maxMemory int64) string {
	switch {
	case res.OutOfMemory:
		return fmt.Sprintf("out of memory: the visited set of %d states needs more than --max-memory %s allows", res.States, formatBytes(maxMemory))
	case res.Err != nil:
		return res.Err.Error()
	}
	return ""
}

// formatBytes prints n in binary units.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1fGiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fKiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}
