package counterexamples

import (
	"cmp"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
)

// ExplainGenerator marks pages written by Explain, so a command may
// replace a page it wrote before but never a file someone else wrote.
const ExplainGenerator = `<meta name="generator" content="kvcheck explain">`

// Explain writes one self-contained HTML page (inline CSS and SVG, no
// script, no network) for a replayed transcript: the title, scenario and
// fixes; for each rank and pool a small chart of the pages in use over the
// steps; and a timeline with one row per step and one lane per rank
// holding the step's action and changes, the violating step highlighted.
func Explain(w io.Writer, res *Result) error {
	return explainTemplate.Execute(w, explainPage(res))
}

// page is the data of the HTML page.
type page struct {
	Title, File, Command string
	Scenario, Fixes      string
	FixDocs              []string
	Verdict              string
	Bad                  bool
	Matches              bool
	Lanes                []string
	Charts               []chart
	Rows                 []row
	Banner               string
	// Triage is the violation's triage paragraph (Result.Triage, else the
	// banner's), "" for none.
	Triage string
	// Story is the scenario's story (what happens in the engine) and
	// Legend the real functions behind each kind of action in the trace.
	Story     []string
	Legend    []string
	Generator template.HTML
}

// row is one step of the timeline.
type row struct {
	Number int
	// Loop, on a livelock cycle's last step, draws the way back.
	Loop     string
	Class    string
	Comments []string
	Cells    []cell
}

// cell is one lane of a row.
type cell struct {
	Action  string
	Changes []string
	Bad     []string
}

// chart is the occupancy of one pool of one rank over the steps.
type chart struct {
	Title string
	SVG   template.HTML
}

// pageScenario names the scenario of a transcript on its page: the
// built-in scenario the config directive names, else the name the banner's
// title starts with ("seed000-deployment (real code): ..."), which is the
// --config file's scenario, else the file name's first part; never
// "custom".
func pageScenario(res *Result) string {
	if sp := res.Replayer.Spec; sp.Scenario != nil {
		return sp.Scenario.Name
	}
	if len(res.Transcript.Banner) > 0 {
		if name, _, ok := strings.Cut(res.Transcript.Banner[0], " ("); ok && name != "" && !strings.ContainsAny(name, " \t") {
			return name
		}
	}
	base := filepath.Base(res.File)
	if name, _, ok := strings.Cut(base, "."); ok && name != "" {
		return name
	}
	return base
}

func explainPage(res *Result) page {
	r := res.Replayer
	sp := r.Spec
	p := page{
		Title:     strings.TrimSpace(firstOr(res.Transcript.Banner, res.File)),
		File:      res.File,
		Command:   "kvcheck replay " + res.File,
		Scenario:  pageScenario(res),
		Fixes:     fixesWords(sp.Fixes, "none (the real code)"),
		Matches:   res.Matches(),
		Banner:    strings.Join(res.Transcript.Banner, "\n"),
		Triage:    cmp.Or(res.Triage, BannerTriage(res.Transcript.Banner)),
		Generator: template.HTML(ExplainGenerator),
	}
	for _, f := range sp.Fixes.List() {
		p.FixDocs = append(p.FixDocs, f.String()+": "+f.Doc())
	}
	if story := Story(p.Scenario); story != "" && sp.Scenario != nil {
		for _, para := range strings.Split(story, "\n\n") {
			text := strings.Join(strings.Fields(para), " ")
			if rest, ok := strings.CutPrefix(text, "What happens: "); ok && rest != "" {
				text = strings.ToUpper(rest[:1]) + rest[1:]
			}
			p.Story = append(p.Story, text)
		}
	}
	trace := make([]spec.Action, len(r.Steps))
	for i, s := range r.Steps {
		trace[i] = s.Action
	}
	p.Legend = legend(trace)
	p.Lanes = append(p.Lanes, "engine")
	for rank := 0; rank < int(sp.Config.Ranks); rank++ {
		p.Lanes = append(p.Lanes, fmt.Sprintf("rank %d", rank))
	}
	marked := -1
	for i, s := range r.Steps {
		if len(s.Violations) > 0 || !s.Enabled {
			marked = i
			p.Bad = true
			if s.After.Crash.Happened {
				p.Verdict = fmt.Sprintf("Step %d: %s", i+1, s.After.Crash.Describe())
			} else if !s.Enabled {
				p.Verdict = fmt.Sprintf("Step %d: %s is not enabled", i+1, s.Text)
			} else {
				p.Verdict = fmt.Sprintf("Step %d breaks %s: %s", i+1, s.Violations[0].Invariant, s.Violations[0].Message)
			}
			break
		}
	}
	if marked < 0 && r.livelockAfter > 0 {
		marked, p.Bad = r.livelockAfter-1, true
		p.Verdict = fmt.Sprintf("No invariant breaks, but nothing progresses: from the state after step %d, steps %d-%d come back to it, forever, and no run from there finishes every request (a livelock)",
			r.livelockAfter, r.livelockAfter+1, len(r.Steps))
	}
	if marked < 0 {
		p.Verdict = fmt.Sprintf("%d steps, and every invariant holds after each", len(r.Steps))
		for i, s := range r.Steps {
			if s.Marked {
				marked = i
				p.Verdict += fmt.Sprintf("; step %d is where the replayed counterexample broke", i+1)
				break
			}
		}
	}
	for i, s := range r.Steps {
		rw := row{Number: i + 1, Comments: s.Comments, Cells: make([]cell, len(p.Lanes))}
		if i == marked {
			rw.Class = "marked"
			if p.Bad {
				rw.Class = "violating"
			}
		}
		if s.InCycle {
			rw.Class = "cycle"
			if i+1 == len(r.Steps) || !r.Steps[i+1].InCycle {
				rw.Loop = fmt.Sprintf("↺ back to after step %d", r.livelockAfter)
			}
		}
		lane := 0
		if s.Action.Kind != spec.ActArrive && !s.Action.Collective {
			lane = int(s.Action.Rank) + 1
		}
		rw.Cells[lane].Action = s.Text
		if !s.Enabled {
			rw.Cells[lane].Bad = append(rw.Cells[lane].Bad, "not enabled here")
		}
		for _, line := range summarize(sp, r.Steps[i:i+1], i+1) {
			var lanes []int
			switch line.Kind {
			case LineViolation, LineNotEnabled, LineEnd:
				continue // told below
			case LineCrash:
				lanes = []int{int(s.After.Crash.Rank) + 1}
			default:
				lanes = []int{0}
				if sp.Config.Ranks == 1 && line.Kind == LinePages {
					lanes = []int{1} // the engine is the one rank
				}
				if len(line.Ranks) > 0 {
					lanes = nil
				}
				for _, rank := range line.Ranks {
					lanes = append(lanes, rank+1)
				}
			}
			for _, l := range lanes {
				if line.Bad() {
					rw.Cells[l].Bad = append(rw.Cells[l].Bad, line.Body())
				} else {
					rw.Cells[l].Changes = append(rw.Cells[l].Changes, line.Body())
				}
			}
		}
		for _, v := range s.Violations {
			rw.Cells[0].Bad = append(rw.Cells[0].Bad, "violation "+v.Invariant+": "+v.Message)
		}
		if s.End != "" {
			rw.Cells[0].Changes = append(rw.Cells[0].Changes, s.End)
		}
		p.Rows = append(p.Rows, rw)
	}
	p.Charts = charts(sp, r, marked)
	return p
}

// legend names the real functions behind each kind of action of a
// trace, in the order the trace first takes them.
func legend(trace []spec.Action) []string {
	var lines []string
	seen := map[spec.ActionKind]bool{}
	for _, a := range trace {
		if seen[a.Kind] {
			continue
		}
		seen[a.Kind] = true
		if f := a.Kind.RealFunctions(); f != "" {
			lines = append(lines, a.Kind.String()+": "+f)
		}
	}
	return lines
}

func firstOr(lines []string, fallback string) string {
	if len(lines) > 0 && strings.TrimSpace(lines[0]) != "" {
		return lines[0]
	}
	return fallback
}

// charts draws, for each rank and pool, the pages in use after each step
// (the initial state first) and the part of them held by the reuse tree.
func charts(sp *spec.Spec, r *Replayer, marked int) []chart {
	states := []spec.State{sp.Initial()}
	for _, s := range r.Steps {
		states = append(states, s.After)
	}
	var out []chart
	for rank := 0; rank < int(sp.Config.Ranks); rank++ {
		for p := range states[0].Ranks[rank].Pools {
			kind := spec.PoolKind(p)
			if !sp.Config.HasPool(uint8(rank), kind) {
				continue
			}
			size := int(sp.Config.PoolBlocks(uint8(rank), kind))
			used := make([]int, len(states))
			tree := make([]int, len(states))
			for i := range states {
				pool := &states[i].Ranks[rank].Pools[p]
				used[i] = size - int(pool.Free)
				for _, n := range pool.Tree {
					tree[i] += int(n)
				}
			}
			out = append(out, chart{
				Title: fmt.Sprintf("rank %d %s pool: pages in use of %d", rank, kind, size),
				SVG:   occupancySVG(used, tree, size, marked),
			})
		}
	}
	return out
}

// occupancySVG draws a step chart of used pages (and reuse-tree pages)
// over the steps, 0..size on the y axis, with a red line at the marked
// step (1-based in the chart, since index 0 is the initial state).
func occupancySVG(used, tree []int, size, marked int) template.HTML {
	const height, top, left, stepWidth = 70, 6, 28, 14
	n := len(used)
	width := left + stepWidth*n + 10
	y := func(v int) int {
		if size == 0 {
			return top + height
		}
		return top + height - v*height/size
	}
	steps := func(values []int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "%d,%d", left, y(0))
		for i, v := range values {
			x := left + i*stepWidth
			fmt.Fprintf(&b, " %d,%d %d,%d", x, y(v), x+stepWidth, y(v))
		}
		fmt.Fprintf(&b, " %d,%d", left+n*stepWidth, y(0))
		return b.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg width="%d" height="%d" viewBox="0 0 %d %d" role="img">`, width, height+top+16, width, height+top+16)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" class="cap"/>`, left, y(size), left+n*stepWidth, y(size))
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" class="axis"/>`, left, y(0), left+n*stepWidth, y(0))
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="label">%d</text><text x="%d" y="%d" class="label">0</text>`, 2, y(size)+4, size, 2, y(0)+4)
	fmt.Fprintf(&b, `<polygon points="%s" class="used"/>`, steps(used))
	fmt.Fprintf(&b, `<polygon points="%s" class="tree"/>`, steps(tree))
	for i := 0; i < n; i += 5 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="label">%d</text>`, left+i*stepWidth+stepWidth/2-3, y(0)+13, i)
	}
	if marked >= 0 && marked+1 < n {
		x := left + (marked+1)*stepWidth + stepWidth/2
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" class="mark"/>`, x, top, x, y(0))
	}
	for i, v := range used {
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" class="hit"><title>after step %d: %d of %d pages in use, %d in the reuse tree</title></rect>`,
			left+i*stepWidth, top, stepWidth, height, i, v, size, tree[i])
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

var explainTemplate = template.Must(template.New("explain").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
{{.Generator}}
<title>{{.Title}}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1b1b1b; }
h1 { font-size: 1.2em; margin: 0 0 .3em; }
.meta { margin: .2em 0; color: #444; }
.verdict { padding: .5em .8em; border-radius: 4px; display: inline-block; margin: .5em 0; }
.verdict.bad { background: #fde2e1; border: 1px solid #d33; }
.verdict.ok { background: #e2f5e4; border: 1px solid #3a3; }
.stale { color: #a40; }
p.triage { max-width: 60em; margin: .3em 0; padding: .4em .8em; background: #f3f3f3; border-left: 3px solid #888; }
.charts { display: flex; flex-wrap: wrap; gap: 1em 2em; margin: 1em 0; }
.chart h2 { font-size: .9em; margin: 0 0 .2em; font-weight: 600; }
svg .used { fill: #9cc3e6; stroke: #2f6fa8; stroke-width: 1; }
svg .tree { fill: #2f6fa8; opacity: .55; }
svg .cap { stroke: #d33; stroke-dasharray: 4 3; }
svg .axis { stroke: #888; }
svg .mark { stroke: #d33; stroke-width: 2; }
svg .label { font-size: 10px; fill: #555; }
svg .hit { fill: transparent; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; }
th, td { border: 1px solid #ddd; padding: .3em .5em; vertical-align: top; text-align: left; }
th { background: #f3f3f3; position: sticky; top: 0; }
th.n, td.n { width: 3em; text-align: right; color: #666; }
th.engine { width: 22%; }
.key { font-size: .8em; color: #555; margin: -.5em 0 1em; }
.key span { display: inline-block; width: 1em; height: .8em; vertical-align: middle; margin: 0 .3em 0 .8em; }
tr.violating td { background: #fde2e1; }
tr.marked td { background: #fff5cc; }
tr.cycle td { background: #fdeeee; }
tr.cycle td.n { border-left: 4px solid #d33; }
td.loop { color: #d33; font-weight: bold; white-space: nowrap; }
.action { font-family: ui-monospace, monospace; font-weight: 600; }
ul { margin: .2em 0 0; padding-left: 1.1em; }
li { font-family: ui-monospace, monospace; font-size: .85em; }
li.bad { color: #b00; font-weight: 600; }
.comment { font-size: .8em; color: #666; font-style: italic; }
pre { background: #f7f7f7; padding: .8em; overflow-x: auto; font-size: .8em; }
h2.section { font-size: 1em; margin: 1.2em 0 .3em; }
p.story { max-width: 60em; margin: .3em 0; }
ul.legend li { font-family: system-ui, sans-serif; font-size: .9em; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="meta">Scenario <b>{{.Scenario}}</b> · fixes <b>{{.Fixes}}</b> · {{.File}}</p>
{{range .FixDocs}}<p class="meta">Fix {{.}}</p>{{end}}
<p class="verdict {{if .Bad}}bad{{else}}ok{{end}}">{{.Verdict}}</p>
{{if .Triage}}<p class="triage">{{.Triage}}</p>{{end}}
{{if not .Matches}}<p class="stale">This replay differs from the outputs written in the file: run <code>{{.Command}}</code> to see the diff. The page shows this replay.</p>{{end}}
<div class="charts">
{{range .Charts}}<div class="chart"><h2>{{.Title}}</h2>{{.SVG}}</div>
{{end}}</div>
<p class="key">x: step (0 = start), y: pages<span style="background:#9cc3e6"></span>in use<span style="background:#2f6fa8;opacity:.55"></span>held by the reuse tree<span style="border-top:2px dashed #d33;height:0"></span>pool size<span style="background:#d33;width:2px"></span>{{if .Bad}}the violating step{{else}}the marked step{{end}}</p>
<table>
<thead><tr><th class="n">step</th>{{range $i, $l := .Lanes}}<th{{if eq $i 0}} class="engine"{{end}}>{{$l}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}{{if .Comments}}<tr class="{{.Class}}"><td class="n"></td><td colspan="{{len .Cells}}" class="comment">{{range .Comments}}{{.}} {{end}}</td></tr>
{{end}}<tr class="{{.Class}}"><td class="n">{{.Number}}</td>{{range .Cells}}<td>{{if .Action}}<div class="action">{{.Action}}</div>{{end}}{{if or .Changes .Bad}}<ul>{{range .Changes}}<li>{{.}}</li>{{end}}{{range .Bad}}<li class="bad">{{.}}</li>{{end}}</ul>{{end}}</td>{{end}}{{if .Loop}}<td class="loop">{{.Loop}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{if .Story}}<h2 class="section">What happens</h2>{{range .Story}}<p class="story">{{.}}</p>{{end}}{{end}}
{{if .Legend}}<h2 class="section">Actions</h2><ul class="legend">{{range .Legend}}<li>{{.}}</li>{{end}}</ul>{{end}}
<details><summary>Transcript banner</summary><pre>{{.Banner}}</pre></details>
<p class="meta">Written by kvcheck explain. Re-execute with <code>{{.Command}}</code>.</p>
</body>
</html>
`))
