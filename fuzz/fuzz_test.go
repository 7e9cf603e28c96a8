package fuzz

// The go test -fuzz targets. Each decodes its input one byte per choice
// over the enabled actions (Decode), so every input is a trace. The seed
// corpus is committed under testdata/fuzz/<Target>/ and plain `go test`
// runs it; `make fuzz-ci` fuzzes FuzzVariants and FuzzPoolBench for a
// bounded time.
//
// A crash the fuzzer finds in a fixed variant is written by go test to
// testdata/fuzz/<Target>/<hash>; committed there, it fails plain go test
// until the fix is fixed. A crash in the real code (FuzzRealCode) is the
// expected finding: copy the file to testdata/regressions/<scenario>/ and
// TestFuzzerCrashRegressions keeps it as a regression case (it crashes the
// real code with the checker's violation, shrinks to the checker's length,
// and crashes none of the fixes that close the scenario).

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// FuzzVariants fuzzes every fix set that the exhaustive checker finds
// closed: the input's first byte picks the variant (modulo their number),
// the rest are choices. Any violation is a failure.
func FuzzVariants(f *testing.F) {
	closed := closedVariants(f)
	for _, data := range seedInputs(closed) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		v := closed[int(data[0])%len(closed)]
		if _, viol := Decode(v.sp, data[1:]); viol != nil {
			failDecoded(t, v.name(), v.sp, viol)
		}
	})
}

// FuzzPoolBench fuzzes the benchmark pool model without its bug.
func FuzzPoolBench(f *testing.F) {
	pool := newPool(f, false)
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, viol := Decode(pool, data); viol != nil {
			t.Fatalf("poolbench: %s: %s (%d steps)\nreproduce: go test ./fuzz/ -run '^%s$'", viol.Key, viol.Message, len(viol.Trace), t.Name())
		}
	})
}

// realCodeScenario is the environment variable that names the scenario
// FuzzRealCode fuzzes; without it FuzzRealCode is skipped.
const realCodeScenario = "KVCHECK_FUZZ_SCENARIO"

// FuzzRealCode fuzzes the real code of the scenario named by
// $KVCHECK_FUZZ_SCENARIO, where a crash is expected: it is how the
// comparison (go run ./fuzz/compare) times go test -fuzz, and how a crash
// file for testdata/regressions/ is made:
//
//	KVCHECK_FUZZ_SCENARIO=draft-admission go test ./fuzz/ -run '^$' -fuzz '^FuzzRealCode$' -fuzztime 60s
//
// The name poolbench-bug selects the benchmark pool model with its seeded
// bug instead.
func FuzzRealCode(f *testing.F) {
	name := os.Getenv(realCodeScenario)
	if name == "" {
		f.Skipf("set %s to a scenario name to fuzz its real code", realCodeScenario)
	}
	if name == "poolbench-bug" {
		pool := newPool(f, true)
		f.Fuzz(func(t *testing.T, data []byte) {
			if _, viol := Decode(pool, data); viol != nil {
				t.Fatalf("poolbench-bug: %s: %s (%d steps)", viol.Key, viol.Message, len(viol.Trace))
			}
		})
		return
	}
	sc, err := scenario.Lookup(name)
	if err != nil {
		f.Fatal(err)
	}
	sp, err := sc.Spec(0)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, viol := Decode(sp, data); viol != nil {
			failDecoded(t, sc.Name+" (real code)", sp, viol)
		}
	})
}

// failDecoded fails t with the violation, its shrunk trace and the command
// that reruns the input.
func failDecoded(t *testing.T, name string, sp *spec.Spec, viol *Violation[spec.Action]) {
	t.Helper()
	msg := fmt.Sprintf("%s: %s: %s (%d steps)", name, viol.Key, viol.Message, len(viol.Trace))
	if shrunk, err := Shrink[spec.State, spec.Action](sp, viol.Trace, viol.Key, ShrinkOptions[spec.State, spec.Action]{}); err == nil {
		msg += fmt.Sprintf("\nshrunk trace (%d steps):%s", len(shrunk.Trace), lines(shrunk.Trace))
	}
	if strings.Contains(t.Name(), "/") {
		t.Fatalf("%s\nreproduce: go test ./fuzz/ -run '^%s$'", msg, t.Name())
	}
	t.Fatalf("%s\nreproduce: go test ./fuzz/ -run '^%s/<file>$', <file> being the input go test writes to testdata/fuzz/%s/ (named below)", msg, t.Name(), t.Name())
}

// readCorpusFile reads a go test fuzz v1 file holding one []byte value.
func readCorpusFile(path string) ([]byte, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(text)), "\n")
	if len(lines) != 2 || lines[0] != "go test fuzz v1" {
		return nil, fmt.Errorf("%s: not a go test fuzz v1 file with one value", path)
	}
	quoted, ok := strings.CutPrefix(lines[1], "[]byte(")
	if quoted, ok = strings.CutSuffix(quoted, ")"); !ok {
		return nil, fmt.Errorf("%s: want []byte(\"...\"), got %s", path, lines[1])
	}
	data, err := strconv.Unquote(quoted)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return []byte(data), nil
}

// writeCorpusFile writes data as a go test fuzz v1 file.
func writeCorpusFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte("go test fuzz v1\n[]byte("+strconv.Quote(string(data))+")\n"), 0o644)
}

// TestFuzzerCrashRegressions replays every crash go test -fuzz found in the
// real code and that was kept under testdata/regressions/<scenario>/: it
// still crashes the real code with one of the checker's violations, the
// crash shrinks to the checker's shortest trace, and no fix set that
// closes the scenario crashes on the same input.
func TestFuzzerCrashRegressions(t *testing.T) {
	files, _ := filepath.Glob("testdata/regressions/*/*")
	if len(files) == 0 {
		t.Fatal("no regression file under testdata/regressions/")
	}
	for _, file := range files {
		scenario := filepath.Base(filepath.Dir(file))
		data, err := readCorpusFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var real *variant
		for _, v := range variants(t) {
			if v.scenario.Name == scenario && v.fixes == 0 {
				real = v
			}
		}
		if real == nil {
			t.Fatalf("%s: no scenario %q", file, scenario)
		}
		trace, viol := Decode(real.sp, data)
		if viol == nil {
			t.Errorf("%s: decodes to %d steps on the real code of %s without a violation", file, len(trace), scenario)
			continue
		}
		want := real.shortest(viol.Key)
		if want == nil {
			t.Errorf("%s: %s is not a violation the checker reports", file, viol.Key)
			continue
		}
		shrunk, err := Shrink[spec.State, spec.Action](real.sp, viol.Trace, viol.Key, ShrinkOptions[spec.State, spec.Action]{})
		if err != nil || len(shrunk.Trace) != len(want) {
			t.Errorf("%s: %d steps shrink to %d (%v); the checker's shortest has %d", file, len(viol.Trace), len(shrunk.Trace), err, len(want))
		}
		for _, v := range closedVariants(t) {
			if v.scenario.Name != scenario {
				continue
			}
			if _, fixed := Decode(v.sp, data); fixed != nil {
				t.Errorf("%s: crashes %s too: %s", file, v.name(), fixed.Message)
			}
		}
	}
}

// TestDecodeAnyInput: random inputs decode without panicking, to the same
// trace every time; Encode gives back bytes that decode to that trace, and
// a violation Decode reports is the one the trace replays to.
func TestDecodeAnyInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, v := range variants(t) {
		for range 50 {
			data := make([]byte, rng.IntN(200))
			for i := range data {
				data[i] = byte(rng.Uint32())
			}
			trace, viol := Decode(v.sp, data)
			again, _ := Decode(v.sp, data)
			if len(again) != len(trace) {
				t.Fatalf("%s: %x decoded to %d then %d steps", v.name(), data, len(trace), len(again))
			}
			encoded, err := Encode[spec.State, spec.Action](v.sp, trace)
			if err != nil {
				t.Fatalf("%s: Encode: %v", v.name(), err)
			}
			if round, _ := Decode(v.sp, encoded); fmt.Sprint(round) != fmt.Sprint(trace) {
				t.Fatalf("%s: Decode(Encode(t)) = %v, t = %v", v.name(), round, trace)
			}
			replayed, err := FirstViolation(v.sp, trace)
			if err != nil || (viol == nil) != (replayed == nil) || (viol != nil && viol.Key != replayed.Key) {
				t.Fatalf("%s: Decode says %+v, the replay %+v, %v", v.name(), viol, replayed, err)
			}
		}
	}
}

var updateCorpus = flag.Bool("update-corpus", false, "rewrite the FuzzVariants and FuzzPoolBench seed corpus under testdata/fuzz/")

// seedInputs are FuzzVariants' seeds in code, so that a fix set added since
// the corpus was written has seeds too: two inputs per closed variant, its
// index then 512 bytes from a PCG stream seeded by the index, long enough
// to run the variant to its end.
func seedInputs(closed []*variant) [][]byte {
	var out [][]byte
	for i := range closed {
		rng := rand.New(rand.NewPCG(uint64(i), 2))
		for range 2 {
			data := []byte{byte(i)}
			for range 512 {
				data = append(data, byte(rng.Uint32()))
			}
			out = append(out, data)
		}
	}
	return out
}

// TestSeedCorpus checks the committed seed corpus: FuzzVariants' inputs
// run a closed variant to its end (a state with no enabled action) without
// a violation, and FuzzPoolBench has inputs. Rewrite it (after a scenario
// or fix set is added, say) with
//
//	go test ./fuzz/ -run '^TestSeedCorpus$' -update-corpus
func TestSeedCorpus(t *testing.T) {
	closed := closedVariants(t)
	if *updateCorpus {
		writeSeedCorpus(t, closed)
	}
	files, _ := filepath.Glob("testdata/fuzz/FuzzVariants/*")
	if len(files) == 0 {
		t.Fatal("no FuzzVariants seed input; run: go test ./fuzz/ -run '^TestSeedCorpus$' -update-corpus")
	}
	for _, file := range files {
		data, err := readCorpusFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) == 0 {
			t.Fatalf("%s: empty input", file)
		}
		v := closed[int(data[0])%len(closed)]
		trace, viol := Decode(v.sp, data[1:])
		if viol != nil {
			t.Fatalf("%s: %s: %s", file, v.name(), viol.Message)
		}
		states, err := model.Replay[spec.State, spec.Action](v.sp, trace)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.sp.Actions(&states[len(states)-1], nil)) != 0 {
			t.Errorf("%s: stops %s after %d steps, before its end; run: go test ./fuzz/ -run '^TestSeedCorpus$' -update-corpus", file, v.name(), len(trace))
		}
	}
	if pool, _ := filepath.Glob("testdata/fuzz/FuzzPoolBench/*"); len(pool) == 0 {
		t.Error("no FuzzPoolBench seed input; run: go test ./fuzz/ -run '^TestSeedCorpus$' -update-corpus")
	}
}

// writeSeedCorpus writes seedInputs as files named after their variants,
// and a few random pool inputs.
func writeSeedCorpus(t *testing.T, closed []*variant) {
	for _, dir := range []string{"testdata/fuzz/FuzzVariants", "testdata/fuzz/FuzzPoolBench"} {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	}
	for k, data := range seedInputs(closed) {
		name := strings.ReplaceAll(closed[data[0]].name(), "/", "-")
		if err := writeCorpusFile(fmt.Sprintf("testdata/fuzz/FuzzVariants/%s-%d", name, k%2), data); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(2, 2))
	for k := range 4 {
		data := make([]byte, 64<<k)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		if err := writeCorpusFile(fmt.Sprintf("testdata/fuzz/FuzzPoolBench/walk-%d", k), data); err != nil {
			t.Fatal(err)
		}
	}
}
