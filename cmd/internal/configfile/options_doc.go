package configfile

import (
	"fmt"
	"sort"
	"strings"
)

// OptionsMarkdown renders the option catalogue (options.go) as the tables
// of docs/options.md: the options read, those ignored with the reason,
// and those refused unless at their default or named in
// kvcheck.ignore_options, with the reason. TestOptionsDocumented keeps
// the document equal to it.
func OptionsMarkdown() string {
	var names []string
	for name := range trtllmOptions {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	section := func(title string, kind optionKind, row func(name string, info optionInfo) string) {
		fmt.Fprintf(&b, "## %s\n\n", title)
		header := map[optionKind]string{
			optRead:       "| option |\n|---|\n",
			optIgnored:    "| option | why it does not matter to the KV cache |\n|---|---|\n",
			optUnmodelled: "| option | accepted at | why kvcheck cannot check it |\n|---|---|---|\n",
		}
		b.WriteString(header[kind])
		for _, name := range names {
			if info := trtllmOptions[name]; info.kind == kind {
				b.WriteString(row(name, info))
			}
		}
		b.WriteString("\n")
	}
	section("Read", optRead, func(name string, _ optionInfo) string { return fmt.Sprintf("| `%s` |\n", name) })
	section("Ignored", optIgnored, func(name string, info optionInfo) string {
		return fmt.Sprintf("| `%s` | %s |\n", name, info.why)
	})
	section("Refused unless at the default or in kvcheck.ignore_options", optUnmodelled, func(name string, info optionInfo) string {
		def := "only in `kvcheck.ignore_options`"
		if info.def != "" {
			def = "`" + info.def + "`"
		}
		return fmt.Sprintf("| `%s` | %s | %s |\n", name, def, info.why)
	})
	return strings.TrimSpace(b.String()) + "\n"
}
