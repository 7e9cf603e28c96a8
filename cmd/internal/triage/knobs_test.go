package triage

import "testing"

// TestNumericNeedWords: a finding gone at the larger size needs at most
// the finding's, one gone at the smaller at least it, one gone on both
// sides exactly it; sizes are unsigned, so a finding at 0 that goes at 1
// needs exactly 0 (max_num_active_requests 0 is no cap at all, not a
// cap below 1).
func TestNumericNeedWords(t *testing.T) {
	for _, tc := range []struct {
		from string
		gone []string
		want string
	}{
		{"2", []string{"3"}, "max_num_active_requests ≤ 2 (gone at 3)"},
		{"2", []string{"1"}, "max_num_active_requests ≥ 2 (gone at 1)"},
		{"2", []string{"1", "3"}, "max_num_active_requests = 2 exactly (gone at 1 and 3)"},
		{"0", []string{"1"}, "max_num_active_requests = 0 (gone at 1)"},
	} {
		var rows []Row
		for _, g := range tc.gone {
			rows = append(rows, Row{from: tc.from, to: g})
		}
		if got := numericNeed("max_num_active_requests", tc.from, rows); got != tc.want {
			t.Errorf("from %s gone at %v: %q, want %q", tc.from, tc.gone, got, tc.want)
		}
	}
}
