package main

import (
	"fmt"
	"slices"
	"time"
)

// workersResult is the comparison of one worker with two on one search.
type workersResult struct {
	size   string
	states int
	// one and two hold, per run, states per wall second and per CPU
	// second.
	oneWall, twoWall, oneCPU, twoCPU []float64
}

// ratio is the median states per wall second of two workers over one's.
func (w *workersResult) ratio() float64 { return median(w.twoWall) / median(w.oneWall) }

// pairRatio is the median, over rounds, of two workers' states per wall
// second over one worker's in the same round: the two runs of a round
// follow each other, so a change in the host's load between rounds, which
// moves both, cancels out.
func (w *workersResult) pairRatio() float64 {
	var rs []float64
	for i := range min(len(w.oneWall), len(w.twoWall)) {
		rs = append(rs, w.twoWall[i]/w.oneWall[i])
	}
	return median(rs)
}

// compareWorkers checks size (no reduction) with one worker, then with
// two, rounds times, alternately, each in a child process, and prints each
// run and the medians. States per wall second is what two workers are for;
// it needs otherwise idle cores, which a shared machine does not give, so
// the CPU seconds are printed too: two workers that spend as much CPU as
// one can reach about twice its speed on two idle cores.
func compareWorkers(exe, scenario, fix, layout, size string, rounds int, limit time.Duration) *workersResult {
	fmt.Printf("\n%s %s without reductions, 1 and 2 workers alternately, %d rounds:\n", scenario, size, rounds)
	w := &workersResult{size: size}
	for round := range rounds {
		for _, workers := range []int{1, 2} {
			var r result
			args := []string{"-scenario", scenario, "-fix", fix, "-layout", layout, "-child", size, "-symmetry", "off", "-por", "off", "-workers", fmt.Sprint(workers)}
			u, err := child(exe, args, limit, &r)
			cpu := u.cpu
			if err != nil {
				fmt.Printf("round %d, %d worker(s): did not complete within %s (%v)\n", round+1, workers, limit, err)
				return nil
			}
			wall, perCPU := float64(r.States)/r.Seconds, float64(r.States)/cpu
			w.states = r.States
			if workers == 1 {
				w.oneWall, w.oneCPU = append(w.oneWall, wall), append(w.oneCPU, perCPU)
			} else {
				w.twoWall, w.twoCPU = append(w.twoWall, wall), append(w.twoCPU, perCPU)
			}
			fmt.Printf("round %d, %d worker(s): %d states, %.2f s wall, %.2f s CPU: %.0f states per wall second, %.0f per CPU second\n",
				round+1, workers, r.States, r.Seconds, cpu, wall, perCPU)
		}
	}
	fmt.Printf("medians: 1 worker %.0f states per wall second (%.0f per CPU second), 2 workers %.0f (%.0f): %.2fx in wall time (%.2fx the median of each round's ratio), %.2fx the CPU per state\n",
		median(w.oneWall), median(w.oneCPU), median(w.twoWall), median(w.twoCPU), w.ratio(), w.pairRatio(), median(w.oneCPU)/median(w.twoCPU))
	return w
}

// median is the median of xs (the mean of the middle two for an even
// count).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
