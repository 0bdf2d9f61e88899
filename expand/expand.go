// Package expand bridges Chinese and English query words: a Chinese
// question gains the English words code and English docs use (归档 ->
// archive, tar), an English word gains the Chinese terms of Chinese docs
// (rollback -> 回滚).
//
// Two sources: glossary.tsv, a hand-written software-engineering glossary
// (see GLOSSARY.md), which wins wherever it has an entry; and CC-CEDICT,
// a general Chinese-English dictionary (see CC-CEDICT.md for its licence
// and internal/gencedict for what is kept of it).
//
// A team's own synonyms (kb.synonyms: 熔断, circuitbreaker) are a third
// source, read from the team's file at search time (Synonyms, team.go).
//
// `go generate ./expand` turns the built-in sources into sorted tables
// (glossary_zh.tsv, glossary_en.tsv, cedict_zh.tsv, cedict_en.tsv),
// embedded and searched in place by bisection: a search parses nothing
// at start-up (parsing the glossary was 5 ms of every Chinese query).
//
// The package only finds words; how much they weigh is search's business.
package expand

//go:generate go run ./internal/gencedict -out . -freq ../segment/zhdict.txt -t2s ../segment/zht2s.txt
//go:generate go run ./internal/genglossary -dir .

import (
	_ "embed"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/git-kb/git-kb/segment"
)

var (
	//go:embed glossary_zh.tsv
	glossaryZh string
	//go:embed glossary_en.tsv
	glossaryEn string
	//go:embed cedict_zh.tsv
	cedictZh string
	//go:embed cedict_en.tsv
	cedictEn string
	//go:embed paraphrase_zh.tsv
	paraphraseZh string
)

// Sources of an expansion.
const (
	SourceGlossary   = "glossary"
	SourceCEDICT     = "cedict"
	SourceParaphrase = "paraphrase"
)

// Expansion is one of the user's words and the words it adds.
type Expansion struct {
	From   string   `json:"from"`
	To     []string `json:"to"`
	Source string   `json:"source"` // SourceGlossary, SourceCEDICT or SourceParaphrase
}

// maxZhMatch is the longest Chinese word looked up, in characters: the
// glossary's longest terms (基于角色的访问控制, 多用途互联网邮件扩展) have
// 9 and 10; a longer one would never match (TestTablesInStep checks).
// CC-CEDICT is asked up to maxCedictMatch only: its longer entries are
// idioms and proper names, not words of a technical question.
const (
	maxZhMatch     = 10
	maxCedictMatch = 6
)

// Expand finds the expansions of a query's text: the Chinese words in it,
// cut in agreement with an, the analyzer that cut the query's terms (nil:
// the built-in dictionary's; see cutHan), and its English words.
// Glossary entries win over CC-CEDICT's for the same word; CC-CEDICT is
// not asked for single characters (too many senses each) nor English
// words of two letters. English words are looked up by their base form
// too (lookupEn), a glossary phrase as one (phraseAt), and modal verbs
// not at all (modal). The paraphrase
// table's colloquial words (起不来 -> 启动失败) are found on their own
// pass (see paraphrases), so they add to the translations, never change
// them.
func Expand(text string, an *segment.Analyzer) []Expansion {
	if an == nil {
		an = segment.Tiny()
	}
	text = segment.Normalize(text) // the tables are simplified and half-width, as the analyzer's terms are
	runs := hanRuns(text)
	if len(runs) > 1 {
		an = an.For(runs) // one dictionary for all the runs
	}
	var out []Expansion
	seen := map[string]bool{}
	add := func(from, to, source string) {
		if to != "" && !seen[source+"\x00"+from] {
			seen[source+"\x00"+from] = true
			out = append(out, Expansion{From: from, To: strings.Split(to, "|"), Source: source})
		}
	}
	for _, run := range runs {
		for _, m := range cutHan([]rune(run), units(an.Words(run))) {
			add(m.word, m.value, m.source)
		}
	}
	for _, run := range runs {
		rs := []rune(run)
		for _, m := range paraphrases(rs) {
			add(m.word, m.value, SourceParaphrase)
		}
		for _, m := range numbers(rs) {
			add(m.word, m.value, SourceParaphrase)
		}
	}
	words := latinWords(text)
	for i := 0; i < len(words); i++ {
		if n, v := phraseAt(words[i:]); n > 0 {
			// From is the phrase's words the analyzer keeps: group by
			// is the word group, in the sense the phrase says.
			add(strings.Join(slices.DeleteFunc(slices.Clone(words[i:i+n]), segment.IsStop), " "), v, SourceGlossary)
			i += n - 1
			continue
		}
		w := words[i]
		if segment.IsStop(w) {
			continue // the analyzer drops it (my of MySQL, how, can): no term to stand beside
		}
		if modal[w] {
			continue
		}
		if v, src, ok := lookupEn(w); ok {
			add(w, v, src)
		}
	}
	return out
}

// maxPhrase is the most words of a glossary phrase looked up.
const maxPhrase = 4

// phraseAt finds the glossary's longest phrase that ws, a question's
// English words, starts with (its last word may be inflected: window
// functions -> window function), and returns its length in words and
// its Chinese. A phrase's words are one concept, translated as one:
// block cache -> 块缓存, not block -> 阻塞 and cache -> 缓存; sign in ->
// 登录, not sign -> 签发; read committed -> 读已提交. A phrase of stop
// words and modals alone names nothing.
func phraseAt(ws []string) (int, string) {
	for n := min(maxPhrase, len(ws)); n >= 2; n-- {
		if !slices.ContainsFunc(ws[:n], func(w string) bool { return !segment.IsStop(w) && !modal[w] }) {
			continue
		}
		head := strings.Join(ws[:n-1], " ") + " "
		for _, last := range append([]string{ws[n-1]}, baseForms(ws[n-1])...) {
			if v, ok := lookup(glossaryEn, head+last); ok {
				return n, v
			}
		}
	}
	return 0, ""
}

// lookupEn finds the Chinese of w, an English word of the question: the
// glossary's for w, else for w's base form (ports -> port, listening ->
// listen, merged -> merge: the analyzer folds plurals, and the tables
// hold base forms), else CC-CEDICT's likewise. The glossary's base form
// comes before CC-CEDICT's inflected one: an engineer's sense before a
// general dictionary's (events -> 事件, not 事变 "incident"; moved -> 移动,
// not 感触 "moved, touched"). CC-CEDICT is not asked for words of two
// letters, as not for single characters: in a technical question they
// are abbreviations or code's function words, CC-CEDICT's senses other
// ones' (tb 肺结核, pr 热腾腾, go 进入).
func lookupEn(w string) (v, source string, ok bool) {
	bases := baseForms(w)
	for _, b := range append([]string{w}, bases...) {
		if v, ok := lookup(glossaryEn, b); ok {
			return v, SourceGlossary, true
		}
	}
	if len(w) <= 2 {
		return "", "", false
	}
	for _, b := range append([]string{w}, bases...) {
		if v, ok := lookup(cedictEn, b); ok {
			return v, SourceCEDICT, true
		}
	}
	return "", "", false
}

// baseForms are the forms w may be an inflection of, likeliest first:
// a plural's singular (queries -> query, indexes -> indexe, index; ports
// -> port) and a participle's verb (merged -> merge, failed -> fail,
// stopped -> stop; caching -> cache, syncing -> sync, running -> run).
// A form of fewer than three letters or with no vowel is none (string
// is no inflection of str, nor thing of th).
func baseForms(w string) []string {
	var out []string
	add := func(b string) {
		if len(b) >= 3 && strings.ContainsAny(b, "aeiouy") {
			out = append(out, b)
		}
	}
	n := len(w)
	if n < 4 {
		return nil
	}
	doubled := func(stem string) { // stopp -> stop
		if m := len(stem); m >= 2 && stem[m-1] == stem[m-2] && !strings.ContainsRune("aeiouls", rune(stem[m-1])) {
			add(stem[:m-1])
		}
	}
	switch {
	case strings.HasSuffix(w, "ies"), strings.HasSuffix(w, "ied"):
		add(w[:n-3] + "y")
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
	case strings.HasSuffix(w, "es"):
		add(w[:n-1])
		add(w[:n-2])
	case strings.HasSuffix(w, "s"):
		add(w[:n-1])
	case strings.HasSuffix(w, "ed"):
		add(w[:n-1])
		add(w[:n-2])
		doubled(w[:n-2])
	case strings.HasSuffix(w, "ing") && n > 5:
		add(w[:n-3])
		add(w[:n-3] + "e")
		doubled(w[:n-3])
	}
	return out
}

// hanMatch is a word of a Han run found in one of the sources.
type hanMatch struct {
	word, value, source string
}

// entry is the glossary's or else CC-CEDICT's value of w (CC-CEDICT only
// for words of 2 to maxCedictMatch characters).
func entry(w string) (hanMatch, bool) {
	if v, ok := lookup(glossaryZh, w); ok {
		return hanMatch{w, v, SourceGlossary}, true
	}
	if n := utf8.RuneCountInString(w); n >= 2 && n <= maxCedictMatch {
		if v, ok := lookup(cedictZh, w); ok {
			return hanMatch{w, v, SourceCEDICT}, true
		}
	}
	return hanMatch{}, false
}

// unit is a word of the analyzer's cut as expansion sees it.
type unit struct {
	n     int  // characters
	known bool // either source has the word (and it is no stop word)
	stop  bool // the analyzer drops it as a stop word
}

// units refines the analyzer's words for lookup: a word either source
// has stays whole; one neither has is replaced by the analyzer's own cut
// of it into shorter words, the words Terms also emits for it (翻译成:
// 翻译 + 成, not CC-CEDICT's 译成 "translate into").
func units(words []segment.Word) []unit {
	var out []unit
	for _, w := range words {
		_, ok := entry(w.Text)
		stop := segment.IsStop(w.Text)
		if !ok && !stop && len(w.Parts) > 1 && partsSpell(w) {
			out = append(out, units(w.Parts)...)
			continue
		}
		out = append(out, unit{n: utf8.RuneCountInString(w.Text), known: ok && !stop, stop: stop})
	}
	return out
}

// partsSpell reports whether w's parts spell w (gse cuts a word into
// consecutive words; anything else is not a cut to follow).
func partsSpell(w segment.Word) bool {
	var b strings.Builder
	for _, p := range w.Parts {
		b.WriteString(p.Text)
	}
	return b.String() == w.Text
}

// cutHan finds the words of the two sources in rs, a run of Han
// characters, in agreement with us, the analyzer's cut of the run (the
// words the query's terms come from).
//
// The analyzer chose its words with word frequencies, which neither
// source has, and a general dictionary's word across its boundaries is
// mostly an accident of the text (写入时: 入时 "fashionable"; 文件中的:
// 中的 "hit the target"; 不够用: 够用 for 不够). So a CC-CEDICT word
// never breaks a word of the analyzer's that a source has (an analyzer
// word neither source has stands for the words inside it, its parts, see
// units); it cuts freely only where the analyzer's words are unknown to
// both sources (gse's mis-cuts and rare words: 库拉 of 数据/库拉); and
// it holds no stop word (的, 会). It may join whole words (下/一次 ->
// 下一次 "next"). A glossary word may start or end anywhere: gse lacks
// most technical terms and mis-cuts around them (基准/测试, 客户/端公/钥
// -> 客户端 + 公钥, 会/话 -> 会话).
//
// Among the cuts allowed, the best covers most of the run's content (the
// characters of words that are not stop words), then scores most, a word
// of n characters scoring n*n (long words beat their pieces), a glossary
// word a little more (it wins a tie). Covering more first is what keeps a
// glossary word across a boundary from cutting a word the analyzer found
// out of the question: 运行/时间 stays 运行 + 时间, not 运行时 (runtime).
// Stop words are not expanded: the analyzer drops them.
func cutHan(rs []rune, us []unit) []hanMatch {
	// at[j] is the unit holding rune j; starts[u] where unit u starts.
	at := make([]int, len(rs))
	starts := make([]int, 0, len(us)+1)
	j := 0
	for u, x := range us {
		starts = append(starts, j)
		for k := j; k < j+x.n && k < len(rs); k++ {
			at[k] = u
		}
		j += x.n
	}
	if j != len(rs) { // not a cut of rs: no boundaries known
		us = []unit{{n: len(rs)}}
		starts = starts[:0]
		starts = append(starts, 0)
		clear(at)
	}
	starts = append(starts, len(rs))
	// breaks: a word starting or ending at rune j would break a known unit.
	breaks := func(j int) bool {
		return j > 0 && j < len(rs) && us[at[j]].known && starts[at[j]] != j
	}
	allowed := func(i, l int, src string) bool {
		a, b := at[i], at[i+l-1]
		if src == SourceGlossary {
			return a != b || !us[a].stop
		}
		for u := a; u <= b; u++ {
			if us[u].stop {
				return false
			}
		}
		return !breaks(i) && !breaks(i+l)
	}
	type score struct{ cover, sc float64 }
	type step struct {
		s score
		n int // characters taken here; 0: none matched, skip one
		m hanMatch
	}
	best := make([]step, len(rs)+1)
	for i := len(rs) - 1; i >= 0; i-- {
		best[i] = step{s: best[i+1].s}
		cover := 0.0
		// Shortest first, stopping where no longer key of either table
		// starts with the characters so far: most runs need two or three
		// lookups a character, not maxZhMatch.
		gMore, cMore := true, true
		for l := 1; l <= min(maxZhMatch, len(rs)-i) && (gMore || cMore); l++ {
			if !us[at[i+l-1]].stop {
				cover++
			}
			w := string(rs[i : i+l])
			var m hanMatch
			var sc float64
			var gv, cv string
			var gok, cok bool
			if gMore {
				gv, gok, gMore = seek(glossaryZh, w)
			}
			if cMore = cMore && l <= maxCedictMatch; cMore {
				cv, cok, cMore = seek(cedictZh, w)
			}
			switch {
			case gok && allowed(i, l, SourceGlossary):
				m, sc = hanMatch{w, gv, SourceGlossary}, float64(l*l)+0.5
			case cok && l >= 2 && allowed(i, l, SourceCEDICT):
				m, sc = hanMatch{w, cv, SourceCEDICT}, float64(l*l)
			default:
				continue
			}
			s := score{cover + best[i+l].s.cover, sc + best[i+l].s.sc}
			// on a tie the longer word wins, but not over skipping a character
			if b := best[i].s; s.cover > b.cover || s.cover == b.cover && (s.sc > b.sc || s.sc == b.sc && best[i].n > 0) {
				best[i] = step{s: s, n: l, m: m}
			}
		}
	}
	var out []hanMatch
	for i := 0; i < len(rs); {
		if n := best[i].n; n > 0 {
			out = append(out, best[i].m)
			i += n
		} else {
			i++
		}
	}
	return out
}

// paraphrases finds the paraphrase table's colloquial words in rs, a run
// of Han characters: the longest key at each place, left to right, not
// overlapping. The keys are phrases people type (起不来, 找回来, 调高),
// which the analyzer cuts in varying ways, so its cut is not asked.
func paraphrases(rs []rune) []hanMatch {
	var out []hanMatch
	for i := 0; i < len(rs); {
		var m hanMatch
		n := 0
		for l, more := 1, true; l <= min(maxZhMatch, len(rs)-i) && more; l++ {
			var v string
			var ok bool
			w := string(rs[i : i+l])
			if v, ok, more = seek(paraphraseZh, w); ok {
				m, n = hanMatch{w, v, SourceParaphrase}, l
			}
		}
		if n == 0 {
			i++
			continue
		}
		out = append(out, m)
		i += n
	}
	return out
}

// seek is lookup that also tells whether a longer key of t starts with
// key (in a sorted table such keys come right after key's place).
func seek(t, key string) (v string, ok, more bool) {
	lo, hi := 0, len(t)
	for lo < hi {
		mid := lo + (hi-lo)/2
		s := lo + strings.LastIndexByte(t[lo:mid], '\n') + 1
		e := lineEnd(t, s)
		if k, _, _ := strings.Cut(t[s:e], "\t"); k < key {
			lo = e + 1
		} else {
			hi = s
		}
	}
	if lo >= len(t) { // lo: the first line whose key is not below key
		return "", false, false
	}
	e := lineEnd(t, lo)
	k, v, _ := strings.Cut(t[lo:e], "\t")
	if k != key {
		return "", false, strings.HasPrefix(k, key)
	}
	if e+1 < len(t) {
		next, _, _ := strings.Cut(t[e+1:lineEnd(t, e+1)], "\t")
		more = strings.HasPrefix(next, key)
	}
	return v, true, more
}

// lineEnd is the index of the newline ending the line that starts at s,
// or len(t).
func lineEnd(t string, s int) int {
	if e := strings.IndexByte(t[s:], '\n'); e >= 0 {
		return s + e
	}
	return len(t)
}

// lookup finds key's value in a table of sorted "key<TAB>value" lines by
// bisection over the bytes.
func lookup(t, key string) (string, bool) {
	lo, hi := 0, len(t)
	for lo < hi {
		mid := lo + (hi-lo)/2
		s := lo + strings.LastIndexByte(t[lo:mid], '\n') + 1
		e := strings.IndexByte(t[s:], '\n')
		if e < 0 {
			e = len(t)
		} else {
			e += s
		}
		k, v, _ := strings.Cut(t[s:e], "\t")
		switch {
		case k == key:
			return v, true
		case k < key:
			lo = e + 1
		default:
			hi = s
		}
	}
	return "", false
}

// hanRuns are the maximal runs of Han characters in text.
func hanRuns(text string) []string {
	var out []string
	start := -1
	for i, r := range text {
		if unicode.Is(unicode.Han, r) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			out = append(out, text[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, text[start:])
	}
	return out
}

// latinWords are text's words of Latin letters, lower-cased, identifiers
// split at case changes and underscores (retryCount -> retry, count), as
// the analyzer splits them. A camelCase word either table has whole is
// kept whole (WaitGroup -> waitgroup: 等待组, not wait and group, whose
// 分组, 用户组 are other things; IndexLookUp -> indexlookup: 回表, not
// index, look, up). One with a part that is no word of either table, or
// a stop word, is a name, one word with no translation: its parts are
// not what it means (TiDB: ti, db -> 数据库; MySQL: my, sql;
// TiFlash: flash -> 闪存; PostgreSQL), while an identifier is words
// (retryCount, maxMemory).
func latinWords(text string) []string {
	var out []string
	word := []rune{}
	var whole strings.Builder // the camelCase word the parts since first come from
	first := 0
	flush := func() {
		if len(word) > 1 {
			out = append(out, strings.ToLower(string(word)))
		}
		word = word[:0]
	}
	end := func() { // the end of a word of letters
		flush()
		if len(out)-first > 1 {
			w := strings.ToLower(whole.String())
			if _, ok := lookup(glossaryEn, w); ok {
				out = append(out[:first], w)
			} else if _, ok := lookup(cedictEn, w); ok {
				out = append(out[:first], w)
			} else if slices.ContainsFunc(out[first:], notWord) {
				out = out[:first]
			}
		}
		whole.Reset()
		first = len(out)
	}
	var prev rune
	for _, r := range text {
		switch {
		case r < utf8.RuneSelf && unicode.IsLetter(r):
			if unicode.IsUpper(r) && unicode.IsLower(prev) {
				flush()
			}
			word = append(word, r)
			whole.WriteRune(r)
		default:
			end()
		}
		prev = r
	}
	end()
	return out
}

// notWord reports whether w, a part of a camelCase word, is a stop word
// or in neither table.
func notWord(w string) bool {
	if segment.IsStop(w) {
		return true
	}
	if _, ok := lookup(glossaryEn, w); ok {
		return false
	}
	_, ok := lookup(cedictEn, w)
	return !ok
}

// modal holds the modal verbs and the auxiliary have, which the analyzer
// keeps as terms (its stop words hold can, should, would, will) but which
// name no topic: "may run", "must be", "have moved". Their translations
// are a Chinese function word or another word's sense (may -> 不得 "must
// not", have -> 没有 "not have"), found in half the pages of a Chinese
// corpus or in the wrong ones. The word itself stays a term.
//
// Only these: the other closed classes (pronouns, quantifiers,
// prepositions, conjunctions, adverbs: each, other, out, over, like,
// before...) untranslated as well cost the English questions more than
// they gained (git kb eval, MRR@10: docs-en .645 -> .623, docs-held .711
// -> .707): each -> 每个 and other -> 其他 say what a question means as
// often as out -> 输出 and like -> 模糊搜索 say something else.
var modal = map[string]bool{
	"may": true, "might": true, "must": true, "shall": true, "ought": true,
	"have": true, "has": true, "had": true, "having": true,
}
