// Package table builds the sorted lookup tables the expand package
// embeds: one "key<TAB>v1|v2" line per key, sorted bytewise after a
// header comment, so they are searched in place by bisection and never
// parsed whole at run time.
package table

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// MaxReverse bounds the Chinese terms one English word gains.
const MaxReverse = 3

// Format renders m as a table with a header comment line.
func Format(header string, m map[string][]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("# " + header + "\n")
	for _, k := range keys {
		b.WriteString(k + "\t" + strings.Join(m[k], "|") + "\n")
	}
	return b.String()
}

// Glossary reads glossary.tsv (`中文<TAB>en1|en2` lines, # comments) into
// its two directions. The first entry of a Chinese term wins. For the
// reverse, an English word maps to the Chinese terms that list it
// earliest in their entry (position 0 first, then 1...), the shorter
// term first among equals (string -> 字符串 before 字符串驻留: a compound
// names a narrower sense), then in the file's order, MaxReverse at most;
// phrases are not reversed.
func Glossary(tsv string) (zh, en map[string][]string) {
	zh, en = map[string][]string{}, map[string][]string{}
	type rev struct {
		zh  string
		pos int
	}
	byEn := map[string][]rev{}
	var order []string
	for _, line := range strings.Split(tsv, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		var to []string
		for _, w := range strings.Split(v, "|") {
			if w = strings.ToLower(strings.TrimSpace(w)); w != "" && !contains(to, w) {
				to = append(to, w)
			}
		}
		if k == "" || len(to) == 0 {
			continue
		}
		if _, dup := zh[k]; !dup {
			zh[k] = to
		}
		for i, w := range to {
			if strings.Contains(w, " ") {
				continue
			}
			if _, ok := byEn[w]; !ok {
				order = append(order, w)
			}
			byEn[w] = append(byEn[w], rev{k, i})
		}
	}
	for _, w := range order {
		rs := byEn[w]
		sort.SliceStable(rs, func(i, j int) bool {
			if rs[i].pos != rs[j].pos {
				return rs[i].pos < rs[j].pos
			}
			return utf8.RuneCountInString(rs[i].zh) < utf8.RuneCountInString(rs[j].zh)
		})
		for _, r := range rs {
			if len(en[w]) < MaxReverse && !contains(en[w], r.zh) {
				en[w] = append(en[w], r.zh)
			}
		}
	}
	return zh, en
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
