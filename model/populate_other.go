//go:build unix && !linux

package model

// populate is 0 where mappings cannot be populated as they are made
// (populate_linux.go).
const populate = 0
