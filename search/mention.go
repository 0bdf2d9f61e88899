package search

import (
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/git-kb/git-kb/chunk"
	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/store"
)

// Names a question gives (lever "mention"). In a question written in
// Chinese, the words typed in Latin script are chosen: the product, tool,
// command, setting or identifier the question is about (TiCDC 的 OpenAPI,
// Lightning 的 server mode, DM 同步延迟). A page that names none of them is
// seldom the answer, however well its Chinese matches the rest: the
// Dashboard's FAQ, which says 浏览器, 网页 and 版本, is not where a question
// about Lightning's web page is answered. So a file written in Chinese
// among the best (nameWindow) is scaled by 1 - mentionWeight × the share
// of those names it lacks (a name counts as said when the file says it or
// one of its translations).
//
// Written in Chinese: a Markdown or text page, or code that says some of
// the question's Chinese words itself (not through their translations),
// as a Chinese team's commented code does. Code written in English is not
// scaled: Latin script is all it has, and it names things by identifiers
// of its own (GOGC is gcPercent in Go's runtime); scaling it lost a Go
// question (docs/MEASURED.md).
//
// A number of three digits or more names a thing too: an error code or a
// port (报错 8004, 2379 端口不通). What is not a name: a quoted value
// ('abc' 和 'ABC'; a code span in backticks is no quote) and a quantity with its unit (几 TB, 100 GB, 10000 行);
// a name no file of the view holds (it tells no file from another); and
// every word of a question with no Chinese in it, where Latin script is
// simply the language.
var mentionWeight = 0.2

var (
	// quoted spans: ASCII quotes and the CJK quotation marks. A single
	// quote after a letter or digit is an apostrophe, opening no quote
	// (TiDB's GC 和 TiKV's compaction). Backticks are no quotes: they
	// mark code, as in Markdown (`tidb_gc_life_time` 设成多少), and a name
	// in them is the more a name.
	quotedSpan = regexp.MustCompile("(?:^|[^A-Za-z0-9_])'[^']*'|\"[^\"]*\"|“[^”]*”|‘[^’]*’|「[^」]*」|『[^』]*』")
	// an English clitic ('s, 't, 'll, typed with either apostrophe): a
	// part of the word before it, no name of its own.
	clitic = regexp.MustCompile(`(?i)\b['’](?:s|t|d|m|ll|re|ve)\b`)
	// a quantity: digits that start a word (not the 8 of k8s) or a
	// Chinese numeral of magnitude, then a unit, Latin or a Chinese
	// measure word. Hours and minutes are 小时 and 分钟: a 时 or 分 alone
	// after a number starts another word more often (报错 8004 时, when
	// 8004 is reported; 8004 分析), as 日 does (8004 日志). A percentage
	// is a quantity (CPU 100%), and so are 10w and 1kw, the 万 and 千万
	// of Chinese chat. 号 is no unit: 8004 号错误 is error number 8004.
	quantity = regexp.MustCompile(`(?i)(?:\b\d+(?:\.\d+)?|[几幾数數十百千万萬])\s*(?:(?:[kmgtpe]i?b|[kmgtpe]|k?w|bytes?|ms|us|ns|s|m|h|rps|qps|tps|rows?)\b|%|‰|小时|小時|分钟|分鐘|[个個条條行列秒天周週月年台臺张張次倍万萬亿億位核])`)
	// Chinese characters: what is left of the question once its quotes
	// and quantities are gone is cut into its words without them.
	hanChars = regexp.MustCompile(`\p{Han}+`)
)

// questionNames are the user's own terms that text writes in Latin script
// or digits beside Chinese (see mentionWeight), spelled as the analyzer
// spells them (full-width folded, lower-cased, a plural folded: ＴｉＤＢ is
// tidb, Regions region), in the order they come; nil for a question
// without Chinese. A name is a whole word or identifier as the analyzer
// cuts it (tidb-server, _tidb_rowid, v8.5.7, 2pc), never a part of one: a
// word with a Latin letter, or a number of three digits or more (8004, not
// the 700 of version 8.5.700).
func questionNames(text string, own map[string]bool) []string {
	text = segment.Normalize(text)
	if segment.HanBytes(text) == 0 {
		return nil
	}
	text = clitic.ReplaceAllString(text, " ")
	text = quotedSpan.ReplaceAllString(text, " ")
	text = quantity.ReplaceAllString(text, " ")
	text = hanChars.ReplaceAllString(text, " ")
	var names []string
	seen := map[string]bool{}
	end := 0
	for _, sp := range segment.Tiny().Spans(text) {
		if sp.Start < end {
			continue // a part of the word before (tidb of tidb-server)
		}
		end = sp.End
		if t := sp.Term; isName(t) && own[t] && !seen[t] {
			seen[t] = true
			names = append(names, t)
		}
	}
	return names
}

// isName reports whether the analyzer's term t of a whole word is a name:
// it has a Latin letter, or is a number of three digits or more.
func isName(t string) bool {
	if strings.ContainsFunc(t, func(r rune) bool { return r >= 'a' && r <= 'z' }) {
		return true
	}
	return len(t) >= 3 && strings.Trim(t, "0123456789") == ""
}

// weighMentions is the mention stage: among the best files, one written in
// Chinese that lacks names the question gives is scaled down, and the window
// reordered (stably).
func weighMentions(names []string, st *lexicalStats, c *lexicalCandidates, files []*fileHits) {
	if mentionWeight <= 0 || len(names) == 0 || st == nil {
		return
	}
	bits := map[string]uint64{}
	for _, t := range st.terms {
		bits[t.term] = t.bit
	}
	var want []string
	for _, n := range names {
		if bits[n] != 0 {
			want = append(want, n) // a name in no file tells no file from another
		}
	}
	if len(want) == 0 {
		return
	}
	n := min(len(files), nameWindow)
	var zh map[uint32]bool // chunks that say a Chinese word of the question, once a code file asks
	moved := false
	for _, f := range files[:n] {
		if l := chunk.Lang(f.entry.Path); l != "markdown" && l != "text" {
			if zh == nil {
				zh = saysChinese(c)
			}
			if !slices.ContainsFunc(f.hits, func(h hit) bool { return zh[h.chunk] }) {
				continue // code written in English
			}
		}
		var mask uint64
		for _, h := range f.hits {
			mask |= st.matched[h.chunk]
		}
		var lacks []string
		for _, w := range want {
			if mask&bits[w] == 0 {
				lacks = append(lacks, w)
			}
		}
		if len(lacks) == 0 {
			continue
		}
		share := float64(len(lacks)) / float64(len(want))
		f.factor(PriorFactor{Name: "mention", Factor: math.Round((1-mentionWeight*share)*1000) / 1000,
			Reason: "never says " + strings.Join(lacks, ", ") + ", which the question names"})
		moved = true
	}
	if moved {
		sort.SliceStable(files[:n], func(i, j int) bool { return files[i].score > files[j].score })
	}
}

// saysChinese is the chunks whose body says one of the user's Chinese
// words itself, not through a translation: from the candidates' postings,
// read only when a code file is weighed (a docs search has none to ask
// about), so scoring pays nothing for it.
func saysChinese(c *lexicalCandidates) map[uint32]bool {
	out := map[uint32]bool{}
	for _, tp := range c.lists {
		if tp.term.from != "" || segment.HanBytes(tp.term.term) == 0 {
			continue
		}
		for _, p := range tp.ps {
			if p.TF[store.FieldBody] > 0 {
				out[p.Chunk] = true
			}
		}
	}
	return out
}
