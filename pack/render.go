package pack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Formats.
const (
	Markdown = "markdown"
	JSON     = "json"
	XML      = "xml"
)

// Render renders the whole pack.
func Render(p *Pack) string { return renderPack(p) }

func renderPack(p *Pack) string {
	switch p.Format {
	case JSON:
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		enc.Encode(p)
		return b.String()
	case XML:
		var b strings.Builder
		fmt.Fprintf(&b, "<context query=\"%s\" commit=\"%s\">\n", xmlEscape(p.Query), p.Commit)
		b.WriteString(render(XML, p.Blocks))
		b.WriteString("</context>\n")
		return b.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Context for: %s\n\n", p.Query)
	b.WriteString(render(Markdown, p.Blocks))
	return b.String()
}

// render renders blocks alone (no envelope): what a block costs.
func render(format string, blocks []Block) string {
	var b strings.Builder
	for _, bl := range blocks {
		switch format {
		case JSON:
			// A block's share of the JSON document: its object.
			js, _ := json.Marshal(bl)
			b.Write(js)
			b.WriteString(",\n")
		case XML:
			fmt.Fprintf(&b, "<document citation=\"%s\" kind=\"%s\"", xmlEscape(bl.Citation), bl.Kind)
			if bl.Heading != "" {
				fmt.Fprintf(&b, " heading=\"%s\"", xmlEscape(bl.Heading))
			}
			fmt.Fprintf(&b, ">\n%s\n</document>\n", xmlEscape(bl.Text))
		default:
			fmt.Fprintf(&b, "## %s\n", bl.Citation)
			if bl.Heading != "" {
				fmt.Fprintf(&b, "%s\n", bl.Heading)
			}
			fence := "```"
			for strings.Contains(bl.Text, fence) {
				fence += "`"
			}
			fmt.Fprintf(&b, "%s%s\n%s\n%s\n\n", fence, fenceLang(bl.Lang), bl.Text, fence)
		}
	}
	return b.String()
}

func fenceLang(l string) string {
	if l == "text" {
		return ""
	}
	return l
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
