package settings

import "strings"

// Markdown is the settings reference README carries, generated from Table
// (a test keeps README in step): one row per setting.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| Key | Type | Default | Accepted | What it does |\n|---|---|---|---|---|\n")
	for _, d := range Table {
		def := "—"
		if d.Default != "" {
			def = "`" + d.Default + "`"
		}
		doc := d.Doc
		if d.Secret {
			doc += " (secret: `git kb config` shows where it is set, never the value)"
		}
		if d.Multi {
			doc += " (several values)"
		}
		b.WriteString("| `" + d.Key + "` | " + d.Type + " | " + def + " | " + cell(d.Accepted) + " | " + cell(doc) + " |\n")
	}
	return b.String()
}

// cell escapes what Markdown would read as table or emphasis syntax.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`).Replace(s)
}

// README's settings table sits between these lines.
const (
	readmeBegin = "<!-- settings table: generated from settings.Table by `go generate ./settings`; do not edit -->\n"
	readmeEnd   = "<!-- end of settings table -->\n"
)

// SpliceReadme puts Markdown() between the table's markers in a README;
// false when the markers are missing.
func SpliceReadme(doc string) (string, bool) {
	i := strings.Index(doc, readmeBegin)
	j := strings.Index(doc, readmeEnd)
	if i < 0 || j < i {
		return doc, false
	}
	return doc[:i+len(readmeBegin)] + "\n" + Markdown() + "\n" + doc[j:], true
}
