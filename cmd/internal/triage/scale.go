package triage

import (
	"reflect"

	"github.com/kvcheck/kvcheck/spec"
)

// Scales are the factors tokens_per_block is multiplied by, and Growths
// the pages every pool grows by, in the scale re-checks.
var (
	Scales  = []uint32{2, 4, 8}
	Growths = []uint32{1, 3}
)

// scaleTokens returns cfg with tokens_per_block set to t and every other
// key that counts tokens scaled with it (the fields of spec.Config and
// spec.RequestTemplate tagged unit:"tokens"), so every ratio to the page
// holds: a value of p whole pages and r tokens more becomes p·t plus r
// scaled to the nearest token (at least 1 and at most t-1, so a partial
// page stays one). For a multiple of tokens_per_block every value is
// multiplied exactly. Step tokens (the draft width, extra KV tokens) and
// pages keep their values: a real engine's pages are many steps wide,
// which is what the scaling is for. A context-only request (sending_kv)
// keeps its max_tokens: the context worker produces its first token only.
func scaleTokens(cfg spec.Config, t uint32) spec.Config {
	from := cfg.TokensPerBlock
	scale := func(v uint32) uint32 {
		pages, rest := v/from, v%from
		out := pages * t
		if rest > 0 {
			r := (rest*t + from/2) / from
			out += min(max(r, 1), t-1)
		}
		return out
	}
	out := cfg
	out.Requests = append([]spec.RequestTemplate(nil), cfg.Requests...)
	scaleFields(reflect.ValueOf(&out).Elem(), scale)
	out.TokensPerBlock = t
	for i := range out.Requests {
		r := &out.Requests[i]
		scaleFields(reflect.ValueOf(r).Elem(), scale)
		if r.SendingKV {
			r.MaxNewTokens = cfg.Requests[i].MaxNewTokens
		}
	}
	return out
}

// scaleFields applies scale to every unit:"tokens" field of the struct v
// but tokens_per_block itself.
func scaleFields(v reflect.Value, scale func(uint32) uint32) {
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if f.Tag.Get("unit") != "tokens" || f.Name == "TokensPerBlock" {
			continue
		}
		v.Field(i).SetUint(uint64(scale(uint32(v.Field(i).Uint()))))
	}
}

// growPools returns cfg with every pool n pages larger: each non-zero
// field tagged unit:"pages" (a per-stage or per-group list entry by
// entry), so pools sized "as many as on GPU" follow their GPU pool.
func growPools(cfg spec.Config, n uint32) spec.Config {
	out := cfg
	out.Requests = append([]spec.RequestTemplate(nil), cfg.Requests...)
	v := reflect.ValueOf(&out).Elem()
	for i := 0; i < v.NumField(); i++ {
		if v.Type().Field(i).Tag.Get("unit") != "pages" {
			continue
		}
		field := v.Field(i)
		if field.Kind() == reflect.Array {
			for j := 0; j < field.Len(); j++ {
				if e := field.Index(j); e.Uint() != 0 {
					e.SetUint(e.Uint() + uint64(n))
				}
			}
		} else if field.Uint() != 0 {
			field.SetUint(field.Uint() + uint64(n))
		}
	}
	return out
}
