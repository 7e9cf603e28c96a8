package sweep

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
)

// engineVersion changes when what this package records of a check changes.
const engineVersion = "sweep-2"

// EngineHash identifies the spec and the engine a result was computed
// with: a hash of their source files (embedded in the binary) and of this
// package's record format.
func EngineHash() string {
	h := sha256.Sum256([]byte(spec.SourceHash() + model.SourceHash() + engineVersion))
	return hex.EncodeToString(h[:])
}

// Cache keeps records across runs in a directory: one JSON-lines file per
// engine hash and variant, each line a result keyed by the configuration
// and the search bounds. A result is reused only by a binary whose spec
// and engine sources hash the same, so a change to either rechecks
// everything it may affect; a torn or foreign line is ignored.
type Cache struct {
	dir    string
	engine string
	mu     sync.Mutex
	loaded map[string]map[string]Record // variant label → key → record
	files  map[string]*bufio.Writer
	open   []*os.File
	// Hits and Stored count lookups answered and records added.
	Hits, Stored int
}

// cacheLine is one line of a cache file.
type cacheLine struct {
	Key    string `json:"key"`
	Record Record `json:"record"`
}

// OpenCache uses dir (created when needed).
func OpenCache(dir string) (*Cache, error) {
	engine := EngineHash()
	if err := os.MkdirAll(filepath.Join(dir, engine[:16]), 0o755); err != nil {
		return nil, fmt.Errorf("results cache: %v", err)
	}
	return &Cache{dir: dir, engine: engine, loaded: map[string]map[string]Record{}, files: map[string]*bufio.Writer{}}, nil
}

// Dir is the cache's directory for this engine.
func (c *Cache) Dir() string { return filepath.Join(c.dir, c.engine[:16]) }

// Key is the cache key of a configuration (its identity, space.ConfigIdentity) under v and search.
func (c *Cache) Key(v Variant, search Search, configKey string) string {
	text := fmt.Sprintf("%s\x00%s\x00%d\x00%d\x00%v\x00%s", c.engine, v.Label(), search.Depth, search.MaxStates, search.Liveness, configKey)
	if len(search.Invariants) > 0 {
		text += fmt.Sprintf("\x00%q", search.Invariants)
	}
	if search.Symmetry { // a record's States counts orbits
		text += "\x00symmetry"
	}
	// A record's Goals are the scenario's: a file whose goals change (a
	// --config file's pressure goals) must not reuse another list's.
	for _, g := range v.Scenario.Goals {
		text += "\x00goal " + g.Name
	}
	if m := search.Match; m != nil {
		text += fmt.Sprintf("\x00match %q %q", m.Invariant, m.Group)
	}
	// Invariants the scenario leaves to another are not checked.
	for _, inv := range slices.Sorted(maps.Keys(v.Scenario.CheckedElsewhere)) {
		text += "\x00skip " + inv
	}
	h := sha256.Sum256([]byte(text))
	return hex.EncodeToString(h[:12])
}

func (c *Cache) path(v Variant) string { return filepath.Join(c.Dir(), v.Label()+".jsonl") }

// Lookup returns the record stored under key for v.
func (c *Cache) Lookup(v Variant, key string) (Record, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.load(v)
	r, ok := m[key]
	if ok {
		c.Hits++
	}
	return r, ok
}

// load reads v's cache file once.
func (c *Cache) load(v Variant) map[string]Record {
	label := v.Label()
	if m, ok := c.loaded[label]; ok {
		return m
	}
	m := map[string]Record{}
	c.loaded[label] = m
	data, err := os.ReadFile(c.path(v))
	if err != nil {
		return m
	}
	for _, text := range strings.Split(string(data), "\n") {
		var l cacheLine
		if text == "" || json.Unmarshal([]byte(text), &l) != nil || l.Key == "" {
			continue
		}
		m[l.Key] = l.Record
	}
	return m
}

// Store adds a record under key for v. It is written when the cache is
// closed.
func (c *Cache) Store(v Variant, key string, r Record) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.load(v)
	if _, ok := m[key]; ok {
		return
	}
	m[key] = r
	w, ok := c.files[v.Label()]
	if !ok {
		f, err := os.OpenFile(c.path(v), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return
		}
		c.open = append(c.open, f)
		w = bufio.NewWriterSize(f, 1<<16)
		c.files[v.Label()] = w
	}
	r.Index = 0
	data, _ := json.Marshal(cacheLine{key, r})
	w.Write(append(data, '\n'))
	c.Stored++
}

// Close writes out the stored records.
func (c *Cache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var first error
	for _, w := range c.files {
		if err := w.Flush(); err != nil && first == nil {
			first = err
		}
	}
	for _, f := range c.open {
		if err := f.Close(); err != nil && first == nil {
			first = err
		}
	}
	c.files, c.open = map[string]*bufio.Writer{}, nil
	return first
}
