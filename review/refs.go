package review

import (
	"context"
	"path"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/git-kb/git-kb/chunk"
	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/search"
)

// identRE matches identifiers and dotted or dashed keys as they appear in
// code and config: retryCount, max_open_conns, db.pool.size, max-conns.
var identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(?:[.\-][A-Za-z_][A-Za-z0-9_]*)*`)

// stopIdents are words too common in code to say what a change is about.
var stopIdents = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`func return if else for range var const type struct interface map chan go defer
	nil err error true false string int int64 uint32 byte bool float64 package import the and for with from this that
	def self none class public private static void new let function async await null undefined this return case switch
	break continue default select fmt errors ctx context len make append cap copy delete panic is are not to of in on
	at an be or by it as we use todo fixme http https www com org`) {
		stopIdents[w] = true
	}
}

// changeTerms returns the words that say what a change is about: the
// identifiers of its changed lines (most frequent first, at most 8) and up
// to 60 characters of their Chinese text.
func changeTerms(lines []string) []string {
	count := map[string]int{}
	var order []string
	var cjk []rune
	for _, l := range lines {
		for _, id := range identRE.FindAllString(l, -1) {
			if len(id) < 3 || stopIdents[strings.ToLower(id)] {
				continue
			}
			if count[id] == 0 {
				order = append(order, id)
			}
			count[id]++
		}
		if len(cjk) < 60 {
			run := false
			for _, r := range l {
				if unicode.Is(unicode.Han, r) {
					cjk = append(cjk, r)
					run = true
				} else if run {
					cjk = append(cjk, ' ')
					run = false
				}
			}
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return count[order[i]] > count[order[j]] })
	out := order[:min(len(order), 8)]
	if s := strings.TrimSpace(string(cjk[:min(len(cjk), 60)])); s != "" {
		out = append(out, s)
	}
	return out
}

func isDoc(lang string) bool { return lang == "markdown" || lang == "text" }

// findRefs searches the base's view for docs about the change and for
// other places that define or use its symbols.
func findRefs(ctx context.Context, o Options, f *File, blobs blobLines) error {
	if f.Binary {
		return nil
	}
	self := func(p string) bool { return p == f.Path || p == f.OldPath }

	// Docs: one query per file, from what the change is about.
	q := append([]string{}, f.terms...)
	q = append(q, f.Symbols[:min(len(f.Symbols), 3)]...)
	stem := strings.TrimSuffix(path.Base(f.Path), path.Ext(f.Path))
	q = append(q, stem)
	for _, c := range f.History[:min(len(f.History), 2)] {
		q = append(q, c.Subject)
	}
	if query := strings.TrimSpace(strings.Join(q, " ")); query != "" {
		docs := func(p string) bool { return isDoc(chunk.Lang(p)) && !self(p) }
		res, err := o.Search(ctx, query, docsPerFile, docs)
		if err != nil {
			return err
		}
		for _, r := range res {
			f.Docs = append(f.Docs, Ref{Path: r.Path, Heading: r.Heading, Citation: r.Citation, Snippet: r.Snippet, Score: r.Score})
		}
	}

	// Code: where the touched symbols live elsewhere. A hit counts only if
	// the symbol appears in it as a whole word; it is a definition if the
	// chunk declares it.
	for _, sym := range f.Symbols[:min(len(f.Symbols), symbolsFiles)] {
		code := func(p string) bool { return !isDoc(chunk.Lang(p)) && !self(p) }
		res, err := o.Search(ctx, sym, 10, code)
		if err != nil {
			return err
		}
		word := regexp.MustCompile(`(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(sym) + `($|[^A-Za-z0-9_])`)
		n := 0
		for _, r := range res {
			if n == refsPerSym {
				break
			}
			if !blobs.mentions(o, r, word) {
				continue
			}
			kind := "use"
			for _, s := range r.Symbols {
				if s == sym {
					kind = "definition"
				}
			}
			f.Code = append(f.Code, Ref{Path: r.Path, Heading: r.Heading, Citation: r.Citation, Score: r.Score, Symbol: sym, Kind: kind})
			n++
		}
	}
	return nil
}

// blobLines caches decoded blobs by SHA while a report is built.
type blobLines map[string][]string

// mentions checks the cited lines of a result for the symbol.
func (bl blobLines) mentions(o Options, r search.Result, word *regexp.Regexp) bool {
	lines, ok := bl[r.Blob]
	if !ok {
		if data, err := o.Repo.ReadBlob(gitx.ParseHash(r.Blob)); err == nil {
			if text, _, bin := chunk.Decode(data); !bin {
				lines = strings.Split(text, "\n")
			}
		}
		bl[r.Blob] = lines
	}
	lo, hi := max(1, r.StartLine), min(len(lines), r.EndLine)
	for i := lo; i <= hi; i++ {
		if word.MatchString(lines[i-1]) {
			return true
		}
	}
	return false
}
