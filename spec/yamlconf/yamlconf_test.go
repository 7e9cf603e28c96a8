package yamlconf

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// fields decodes text, a mapping, into its fields.
func fields(t *testing.T, r *Reader, text string) []Field {
	t.Helper()
	n, err := r.Decode([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := r.Fields(n, "the file")
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestReaderErrors: every reader accepts the limits of its range and
// names the file, the line, the key and the expected form otherwise.
func TestReaderErrors(t *testing.T) {
	r := &Reader{File: "f.yaml", Expected: "a mapping"}
	fs := fields(t, r, "lo: 2\nhi: 9\nbelow: 1\nabove: 10\nlist: [2, 9]\nlong: [2, 3, 4]\nempty: []\nbad: [2, x]\n"+
		"num: 0.5\nyes: True\nno: FALSE\nword: abc\nmap: {a: 1}\nwords: [a, b]\nnested: [a, [b]]\nhuge: 5\n")
	at := map[string]Field{}
	for _, f := range fs {
		at[f.Key] = f
	}
	for _, c := range []struct {
		read func() (any, error)
		want any
		err  string
	}{
		{func() (any, error) { return r.Int(at["lo"], 2, 9) }, int64(2), ""},
		{func() (any, error) { return r.Int(at["hi"], 2, 9) }, int64(9), ""},
		{func() (any, error) { return r.Int(at["below"], 2, 9) }, int64(0), "f.yaml:3: below: expected an integer 2..9, got the value \"1\""},
		{func() (any, error) { return r.Int(at["above"], 2, 9) }, int64(0), "f.yaml:4: above: expected an integer 2..9, got the value \"10\""},
		{func() (any, error) { return r.Int(at["huge"], 6, math.MaxInt64) }, int64(0), "f.yaml:16: huge: expected an integer at least 6, got the value \"5\""},
		{func() (any, error) { return r.IntList(at["list"], 2, 9, 2) }, []int64{2, 9}, ""},
		{func() (any, error) { return r.IntList(at["long"], 2, 9, 2) }, []int64(nil), "f.yaml:6: long: expected a list of 1..2 integers like [10, 9], got a list"},
		{func() (any, error) { return r.IntList(at["empty"], 2, 9, 2) }, []int64(nil), "f.yaml:7: empty: expected a list of 1..2 integers"},
		{func() (any, error) { return r.IntList(at["bad"], 2, 9, 2) }, []int64(nil), "f.yaml:8: bad: expected an integer 2..9, got the value \"x\""},
		{func() (any, error) { return r.Float(at["num"], 0.5, 1) }, 0.5, ""},
		{func() (any, error) { return r.Float(at["num"], 0, 0.25) }, 0.0, "f.yaml:9: num: expected a number 0..0.25, got the value \"0.5\""},
		{func() (any, error) { return r.Float(at["num"], 0.75, 1) }, 0.0, "f.yaml:9: num: expected a number 0.75..1"},
		{func() (any, error) { return r.Bool(at["yes"]) }, true, ""},
		{func() (any, error) { return r.Bool(at["no"]) }, false, ""},
		{func() (any, error) { return r.Bool(at["word"]) }, false, "f.yaml:12: word: expected true or false, got the value \"abc\""},
		{func() (any, error) { return r.String(at["word"]) }, "abc", ""},
		{func() (any, error) { return r.String(at["map"]) }, "", "f.yaml:13: map: expected a text value, got a mapping"},
		{func() (any, error) { return r.StringList(at["words"]) }, []string{"a", "b"}, ""},
		{func() (any, error) { return r.StringList(at["word"]) }, []string(nil), "f.yaml:12: word: expected a list like [a, b], got the value \"abc\""},
		{func() (any, error) { return r.StringList(at["nested"]) }, []string(nil), "f.yaml:15: nested: expected a text item, got a list"},
	} {
		got, err := c.read()
		if msg := ""; err != nil {
			msg = err.Error()
			if c.err == "" || !strings.HasPrefix(msg, c.err) {
				t.Errorf("error %q, want %q", msg, c.err)
			}
		} else if c.err != "" {
			t.Errorf("got %v, want error %q", got, c.err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("got %#v, want %#v (error %q)", got, c.want, c.err)
		}
	}
}

// TestDecodeAndFields: a YAML syntax error names its line, an empty file
// is nil, a repeated key names both lines, a non-mapping says what it is.
func TestDecodeAndFields(t *testing.T) {
	r := &Reader{File: "f.yaml", Expected: "a mapping of settings"}
	if n, err := r.Decode(nil); n != nil || err != nil {
		t.Errorf("empty file: %v, %v; want nil, nil", n, err)
	}
	if _, err := r.Decode([]byte("a: 1\nb: [\n")); err == nil || err.Error() != "f.yaml:2: not valid YAML (did not find expected node content); expected a mapping of settings" {
		t.Errorf("syntax error: %v", err)
	}
	n, err := r.Decode([]byte("a: 1\nb: 2\na: 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Fields(n, "the file"); err == nil || err.Error() != `f.yaml:3: the file: key "a" given twice (first on line 1)` {
		t.Errorf("repeated key: %v", err)
	}
	n, _ = r.Decode([]byte("- 1\n"))
	if _, err := r.Fields(n, "the file"); err == nil || err.Error() != "f.yaml:1: the file: expected a mapping of key: value lines, got a list" {
		t.Errorf("a list: %v", err)
	}
	if got := (&Error{File: "f.yaml", Msg: "empty"}).Error(); got != "f.yaml: empty" {
		t.Errorf("whole-file error %q", got)
	}
}

// TestQuoteAndTextLines: Quote cuts at MaxQuoted bytes; TextLines numbers
// a block scalar's lines from the line after its key, a plain one from
// its own.
func TestQuoteAndTextLines(t *testing.T) {
	exact := strings.Repeat("x", MaxQuoted)
	if got := Quote(exact); got != `"`+exact+`"` {
		t.Errorf("Quote of %d bytes = %s", MaxQuoted, got)
	}
	if got := Quote(exact + "y"); got != `"`+exact+`"...` {
		t.Errorf("Quote of %d bytes = %s", MaxQuoted+1, got)
	}
	r := &Reader{File: "f.yaml"}
	fs := fields(t, r, "x: 1\nblock: |\n  a\n  b\nplain: c\n")
	want := map[string][]TextLine{"block": {{"a", 3}, {"b", 4}}, "plain": {{"c", 5}}}
	for _, f := range fs[1:] {
		if got := TextLines(f); !reflect.DeepEqual(got, want[f.Key]) {
			t.Errorf("TextLines(%s) = %v, want %v", f.Key, got, want[f.Key])
		}
	}
}
