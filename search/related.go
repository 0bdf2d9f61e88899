package search

import (
	"context"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/git-kb/git-kb/chunk"
	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/store"
)

// Relation says why a related result is listed: which matched file it
// relates to, and how.
type Relation struct {
	// Kind is RelDefines (the definition of a name the match uses),
	// RelImports (a file the match imports or links to) or RelImportedBy
	// (a file that imports or links to the match).
	Kind string `json:"kind"`
	From string `json:"from"`             // the matched file's path
	Name string `json:"symbol,omitempty"` // defines: the name as the match writes it
	Via  string `json:"via,omitempty"`    // imports, imported_by: the import path or link as written
}

// Relation kinds.
const (
	RelDefines    = "defines"
	RelImports    = "imports"
	RelImportedBy = "imported_by"
)

// RelatedMax is how many related results a search adds, at most, after
// its matches (which it does not change).
const RelatedMax = 12

// Limits of the related expansion: it follows the top few strong matches,
// and adds a handful of files for each. Beyond that it is a dependency
// listing, not search.
const (
	relatedSeeds       = 3
	relatedPerKind     = 3
	relatedMinCoverage = 0.6 // share of the query's words a match must contain to be followed
	relatedMaxReads    = 300 // candidate files read to find importers
	maxCallsFollowed   = 40  // names of a chunk looked up
)

// pathIndex finds a view's files by path and by directory.
type pathIndex struct {
	byPath map[string]*store.ViewEntry
	byDir  map[string][]*store.ViewEntry
}

func newPathIndex(v *store.View) *pathIndex {
	x := &pathIndex{byPath: map[string]*store.ViewEntry{}, byDir: map[string][]*store.ViewEntry{}}
	for i := range v.Entries {
		e := &v.Entries[i]
		if e.N == 0 {
			continue
		}
		x.byPath[e.Path] = e
		d := chunk.Dir(e.Path)
		x.byDir[d] = append(x.byDir[d], e)
	}
	for _, es := range x.byDir {
		sort.Slice(es, func(i, j int) bool { return es[i].Path < es[j].Path })
	}
	return x
}

// uniqueSuffix is the one file whose path is rel or ends in /rel (an
// include or a Java class path found from any source root); nil when none
// or several are.
func (x *pathIndex) uniqueSuffix(rel string) []*store.ViewEntry {
	var hits []*store.ViewEntry
	for p, e := range x.byPath {
		if p == rel || strings.HasSuffix(p, "/"+rel) {
			if hits = append(hits, e); len(hits) > 1 {
				return nil
			}
		}
	}
	return hits
}

// related appends, to a strong result set, the files its best matches
// import or are imported by and the definitions of the names they use.
// A weak set (the first result lacks most of the query's words) gets
// none: following a poor match's imports only adds noise.
func (s *Searcher) related(ctx context.Context, req Request, resp *Response, hits []hit, terms []string) error {
	if len(resp.Results) == 0 {
		return nil
	}
	v := req.View
	// Where the query's words score in each file: among many candidates,
	// the related files worth listing are those also about the query.
	best := map[string]hit{}
	chunkScore := make(map[uint32]float64, len(hits))
	for _, h := range hits {
		chunkScore[h.chunk] = h.score
		if e := entryOf(v, h.chunk); e != nil {
			if b, ok := best[e.Path]; !ok || h.score > b.score {
				best[e.Path] = h
			}
		}
	}
	explicit := req.Parsed != nil && (len(req.Parsed.Symbols) > 0 || len(req.Parsed.Files) > 0)
	x := newPathIndex(v)
	r := &relater{s: s, req: req, x: x, best: best, chunkScore: chunkScore, terms: terms, shown: map[string]bool{}}
	for _, res := range resp.Results {
		r.shown[res.Path+"#"+strconv.Itoa(res.StartLine)] = true
		r.shown[res.Path] = true
	}
	var seeds []Result
	for i, res := range resp.Results {
		if i >= relatedSeeds {
			break
		}
		if s.unreadable(res.Path) {
			continue // its blob cannot be read (noteUnread)
		}
		cov, err := r.coverage(res)
		if err != nil {
			return err
		}
		if cov >= relatedMinCoverage || explicit {
			seeds = append(seeds, res)
		} else if i == 0 {
			resp.RelatedNote = "no related files: the best match contains few of the query's words, so its imports would be noise"
			return nil
		}
	}
	var out []Result
	for _, seed := range seeds {
		if err := ctx.Err(); err != nil {
			return err
		}
		found, err := r.expand(seed)
		if err != nil {
			return err
		}
		for _, f := range found {
			if len(out) < RelatedMax {
				out = append(out, f)
			}
		}
	}
	if len(out) == 0 {
		resp.RelatedNote = "no related files found for the top matches"
	}
	highlight(out, r.terms)
	for i := range out {
		out[i].Rank = len(resp.Results) + 1
		out[i].Match = "related"
		resp.Results = append(resp.Results, out[i])
	}
	return nil
}

type relater struct {
	s    *Searcher
	req  Request
	x    *pathIndex
	best map[string]hit
	// chunkScore is each hit chunk's score for the query.
	chunkScore map[uint32]float64
	terms      []string
	shown      map[string]bool // paths and path#line already listed
	// goMods caches each directory's nearest go.mod: its directory and
	// module path.
	goMods map[string][2]string
}

// coverage is the share of the query's words found in a result's chunk,
// heading, title, path and symbols.
func (r *relater) coverage(res Result) (float64, error) {
	if len(r.terms) == 0 {
		return 0, nil
	}
	e := r.x.byPath[res.Path]
	if e == nil {
		return 0, nil
	}
	text, err := r.s.chunkText(e, e.First+uint32(chunkIndex(res.ChunkID)))
	if err != nil {
		return 0, err
	}
	have := map[string]bool{}
	for _, t := range segment.Tiny().Terms(strings.Join([]string{text, res.Title, res.Heading, res.Path, strings.Join(res.Symbols, " ")}, "\n")) {
		have[t] = true
	}
	n := 0
	for _, t := range r.terms {
		if have[t] {
			n++
		}
	}
	return float64(n) / float64(len(r.terms)), nil
}

func chunkIndex(id string) int {
	i := strings.LastIndexByte(id, ':')
	n, _ := strconv.Atoi(id[i+1:])
	return n
}

// expand finds what one matched result relates to: definitions of the
// names its chunk uses first (the most specific), then the files its file
// imports, then the files importing it.
func (r *relater) expand(seed Result) ([]Result, error) {
	e := r.x.byPath[seed.Path]
	if e == nil {
		return nil, nil
	}
	m, err := r.s.blobMeta(e.Blob)
	if err != nil {
		return nil, err
	}
	lines, err := r.s.blobLines(e.Path, e.Blob)
	if err != nil {
		return nil, err
	}
	targets, byAlias := r.importTargets(e.Path, m.Lang, strings.Join(lines, "\n"))
	defs, usedTargets, err := r.definitions(seed, e, m.Lang, targets, byAlias)
	if err != nil {
		return nil, err
	}
	l := &relatedList{r: r, seed: seed, listed: map[string]int{}}
	defined, err := l.addDefinitions(defs)
	if err != nil {
		return nil, err
	}
	if err := l.addImports(targets, usedTargets, defined, m.Lang); err != nil {
		return nil, err
	}
	if err := l.addImporters(e, m.Lang); err != nil {
		return nil, err
	}
	return l.out, nil
}

// importTarget is an import resolved to the files it names (a Go import
// names a directory).
type importTarget struct {
	imp   chunk.Import
	files []*store.ViewEntry
}

// importTargets resolves the imports of a file's text; unresolved ones are
// outside the repository. byAlias finds a target by the name the file
// calls it.
func (r *relater) importTargets(path, lang, text string) (targets []importTarget, byAlias map[string]int) {
	byAlias = map[string]int{}
	for _, imp := range chunk.Imports(lang, text) {
		files := r.resolve(path, lang, imp)
		if len(files) == 0 {
			continue
		}
		if imp.Alias != "" {
			byAlias[imp.Alias] = len(targets)
		}
		targets = append(targets, importTarget{imp, files})
	}
	return targets, byAlias
}

// definition is where a name the matched chunk uses is defined.
type definition struct {
	f      *store.ViewEntry
	idx    int
	name   string
	target int // the import it goes through, or -1
	score  float64
}

// definitions finds the definitions of the names the seed's chunk uses,
// most relevant to the query first, then in order of use; usedTargets are
// the imports those names go through.
func (r *relater) definitions(seed Result, e *store.ViewEntry, lang string, targets []importTarget, byAlias map[string]int) ([]definition, map[int]bool, error) {
	chunkText, err := r.s.chunkText(e, e.First+uint32(chunkIndex(seed.ChunkID)))
	if err != nil {
		return nil, nil, err
	}
	own := map[string]bool{}
	for _, sym := range seed.Symbols {
		own[sym] = true
		own[sym[strings.LastIndexByte(sym, '.')+1:]] = true
	}
	var defs []definition
	usedTargets := map[int]bool{}
	for i, c := range chunk.Calls(lang, chunkText) {
		if i >= maxCallsFollowed {
			break
		}
		if own[c.Name] {
			continue
		}
		var where []*store.ViewEntry
		match := func(sym string) bool { return sym == c.Name }
		ti, isPkg := byAlias[c.Qual]
		switch {
		case c.Qual != "" && isPkg:
			where = targets[ti].files
			usedTargets[ti] = true
		case lang == "go":
			// A name of the same package, or x.Method: look in the
			// package's other files.
			for _, f := range r.x.byDir[chunk.Dir(e.Path)] {
				if f.Path != e.Path && strings.HasSuffix(f.Path, ".go") {
					where = append(where, f)
				}
			}
			if c.Qual != "" {
				match = func(sym string) bool { return strings.HasSuffix(sym, "."+c.Name) }
			}
		default:
			if where, err = r.definedElsewhere(c.Name, e.Path); err != nil {
				return nil, nil, err
			}
		}
		f, idx, err := r.findDefinition(where, match, strings.HasSuffix(e.Path, "_test.go"))
		if err != nil {
			return nil, nil, err
		}
		if f == nil {
			continue
		}
		d := definition{f: f, idx: idx, name: c.Name, target: -1, score: r.chunkScore[f.First+uint32(idx)]}
		if c.Qual != "" {
			d.name = c.Qual + "." + c.Name
		}
		if isPkg {
			d.target = ti
		}
		defs = append(defs, d)
	}
	sort.SliceStable(defs, func(i, j int) bool { return defs[i].score > defs[j].score })
	return defs, usedTargets, nil
}

// relatedList is what expand lists for one seed, at most relatedPerKind
// of each kind.
type relatedList struct {
	r      *relater
	seed   Result
	out    []Result
	listed map[string]int // per kind
}

func (l *relatedList) full(kind string) bool { return l.listed[kind] >= relatedPerKind }

// add lists chunk idx of f unless it is already on the page; it reports
// whether it did.
func (l *relatedList) add(f *store.ViewEntry, idx int, rel Relation) (bool, error) {
	r := l.r
	res, err := r.s.result(r.req, f, idx, r.terms)
	if err != nil {
		return false, err
	}
	key := res.Path + "#" + strconv.Itoa(res.StartLine)
	if r.shown[key] || rel.Kind != RelDefines && r.shown[res.Path] {
		return false, nil
	}
	r.shown[key], r.shown[res.Path] = true, true
	rel.From = l.seed.Path
	res.Related = &rel
	l.out = append(l.out, res)
	l.listed[rel.Kind]++
	return true, nil
}

// addDefinitions lists the definitions; it returns the imports a listed
// definition stands for.
func (l *relatedList) addDefinitions(defs []definition) (map[int]bool, error) {
	defined := map[int]bool{}
	for _, d := range defs {
		if l.full(RelDefines) {
			break
		}
		ok, err := l.add(d.f, d.idx, Relation{Kind: RelDefines, Name: d.name})
		if err != nil {
			return nil, err
		}
		defined[d.target] = defined[d.target] || ok
	}
	return defined, nil
}

// addImports lists the files the seed imports: those the matched chunk
// uses (its links, or the packages its code names) first, then those most
// about the query. A Go file's other imports are its neighbours' business,
// not this chunk's.
func (l *relatedList) addImports(targets []importTarget, usedTargets, defined map[int]bool, lang string) error {
	r, seed := l.r, l.seed
	inChunk := func(ti int) bool {
		t := targets[ti]
		return usedTargets[ti] || t.imp.Line >= seed.StartLine && t.imp.Line <= seed.EndLine
	}
	order := make([]int, 0, len(targets))
	for ti := range targets {
		if !defined[ti] && (lang != "go" || usedTargets[ti]) {
			order = append(order, ti)
		}
	}
	fileScore := func(ti int) float64 {
		best := 0.0
		for _, f := range targets[ti].files {
			best = max(best, r.best[f.Path].score)
		}
		return best
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if inChunk(a) != inChunk(b) {
			return inChunk(a)
		}
		return fileScore(a) > fileScore(b)
	})
	for _, ti := range order {
		if l.full(RelImports) {
			break
		}
		t := targets[ti]
		f, idx := r.representative(t.files)
		if _, err := l.add(f, idx, Relation{Kind: RelImports, Via: t.imp.Spec}); err != nil {
			return err
		}
	}
	return nil
}

// addImporters lists the files importing the seed's file.
func (l *relatedList) addImporters(e *store.ViewEntry, lang string) error {
	importers, err := l.r.importers(e, lang)
	if err != nil {
		return err
	}
	for _, imp := range importers {
		if l.full(RelImportedBy) {
			break
		}
		f, idx := l.r.representative([]*store.ViewEntry{imp.file})
		if _, err := l.add(f, idx, Relation{Kind: RelImportedBy, Via: imp.via}); err != nil {
			return err
		}
	}
	return nil
}

// representative picks the chunk to show for a related file (or package):
// the one that scored best for the query, else a Go package's doc.go or
// its first non-test file, else the file's first chunk.
func (r *relater) representative(files []*store.ViewEntry) (*store.ViewEntry, int) {
	var pick *store.ViewEntry
	var score float64
	for _, f := range files {
		if h, ok := r.best[f.Path]; ok && (pick == nil || h.score > score) {
			pick, score = f, h.score
		}
	}
	if pick != nil {
		return pick, int(r.best[pick.Path].chunk - pick.First)
	}
	for _, f := range files {
		if path.Base(f.Path) == "doc.go" {
			return f, 0
		}
	}
	for _, f := range files {
		if !strings.HasSuffix(f.Path, "_test.go") {
			return f, 0
		}
	}
	return files[0], 0
}

// findDefinition finds the chunk among files that declares a symbol
// match accepts, in code files; in Go test files only if tests (a test's
// helpers live in other test files; code does not call into tests).
func (r *relater) findDefinition(files []*store.ViewEntry, match func(string) bool, tests bool) (*store.ViewEntry, int, error) {
	for _, f := range files {
		if !tests && strings.HasSuffix(f.Path, "_test.go") {
			continue
		}
		m, err := r.s.blobMeta(f.Blob)
		if err != nil {
			return nil, 0, err
		}
		if m.Lang == "markdown" || m.Lang == "text" {
			continue
		}
		for i, cm := range m.Chunks {
			for _, sym := range cm.Symbols {
				if match(sym) {
					return f, i, nil
				}
			}
		}
	}
	return nil, 0, nil
}

// definedElsewhere lists the code files, other than self, that declare
// name, through the symbol field's postings. A name declared in more than
// a few places is too common to say which one is meant: none is returned.
func (r *relater) definedElsewhere(name, self string) ([]*store.ViewEntry, error) {
	req := r.req
	req.Scope = func(p string) bool {
		l := chunk.Lang(p)
		return p != self && l != "markdown" && l != "text"
	}
	defs, err := r.s.definitions(req, []string{name})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []*store.ViewEntry
	for _, c := range defs {
		if e := entryOf(req.View, c); e != nil && !seen[e.Path] {
			seen[e.Path] = true
			out = append(out, e)
		}
	}
	if len(out) > 2 {
		return nil, nil
	}
	// Nearest first: the same directory, then the longest shared prefix.
	dir := chunk.Dir(self)
	sort.SliceStable(out, func(i, j int) bool { return sharedPrefix(out[i].Path, dir) > sharedPrefix(out[j].Path, dir) })
	return out, nil
}

func sharedPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// resolve maps an import of file from (language lang) to the indexed
// files it names: one file, or a Go package's files.
func (r *relater) resolve(from, lang string, imp chunk.Import) []*store.ViewEntry {
	dir := chunk.Dir(from)
	file := func(p string) []*store.ViewEntry {
		if e := r.x.byPath[p]; e != nil && p != from {
			return []*store.ViewEntry{e}
		}
		return nil
	}
	switch lang {
	case "go":
		d := r.goImportDir(dir, imp.Spec)
		var out []*store.ViewEntry
		for _, e := range r.x.byDir[d] {
			if strings.HasSuffix(e.Path, ".go") && !strings.HasSuffix(e.Path, "_test.go") {
				out = append(out, e)
			}
		}
		return out
	case "markdown":
		p := joinRel(dir, imp.Spec)
		if f := file(p); f != nil {
			return f
		}
		for _, index := range []string{"README.md", "_index.md", "index.md"} {
			if f := file(path.Join(p, index)); f != nil {
				return f
			}
		}
	case "python":
		spec := imp.Spec
		base := ""
		if strings.HasPrefix(spec, ".") {
			trimmed := strings.TrimLeft(spec, ".")
			base = dir
			for i := 1; i < len(spec)-len(trimmed); i++ {
				base = chunk.Dir(base)
			}
			spec = trimmed
		}
		rel := strings.ReplaceAll(spec, ".", "/")
		roots := []string{base}
		if base == "" {
			// An absolute module is found from the repository's root or
			// from any directory above the importing file (src/ layouts).
			roots = append(roots, ancestors(dir)...)
		}
		for _, root := range roots {
			for _, cand := range []string{rel + ".py", rel + "/__init__.py"} {
				if f := file(path.Join(root, cand)); f != nil {
					return f
				}
			}
		}
	case "javascript", "typescript":
		if !strings.HasPrefix(imp.Spec, ".") {
			return nil // a package from node_modules
		}
		p := joinRel(dir, imp.Spec)
		for _, ext := range []string{"", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", "/index.ts", "/index.tsx", "/index.js"} {
			if f := file(p + ext); f != nil {
				return f
			}
		}
	case "c":
		if f := file(joinRel(dir, imp.Spec)); f != nil {
			return f
		}
		if f := r.x.uniqueSuffix(imp.Spec); f != nil {
			return f
		}
	case "rust":
		for _, cand := range []string{imp.Spec + ".rs", imp.Spec + "/mod.rs"} {
			if f := file(path.Join(dir, cand)); f != nil {
				return f
			}
		}
	case "java":
		rel := strings.ReplaceAll(imp.Spec, ".", "/")
		for _, ext := range []string{".java", ".kt", ".scala"} {
			if f := r.x.uniqueSuffix(rel + ext); f != nil {
				return f
			}
		}
	}
	return nil
}

// joinRel joins a link target to the linking file's directory; a target
// starting with / is from the repository's root.
func joinRel(dir, spec string) string {
	if strings.HasPrefix(spec, "/") {
		return strings.TrimPrefix(path.Clean(spec), "/")
	}
	p := path.Join(dir, spec)
	if strings.HasPrefix(p, "../") || p == ".." {
		return ""
	}
	return p
}

// ancestors lists dir's ancestors, nearest first, the root ("") last.
func ancestors(dir string) []string {
	var out []string
	for dir != "" {
		dir = chunk.Dir(dir)
		out = append(out, dir)
	}
	return out
}

// goImportDir maps a Go import path to a directory of the repository:
// through the nearest go.mod's module path, or as a path from the root
// (GOPATH-style trees and Go's own source, where net/http is net/http/).
// "" when the package is not in the repository.
func (r *relater) goImportDir(fromDir, spec string) string {
	mod := r.goMod(fromDir)
	if mod[1] != "" {
		if spec == mod[1] {
			return mod[0]
		}
		if rest, ok := strings.CutPrefix(spec, mod[1]+"/"); ok {
			return path.Join(mod[0], rest)
		}
	}
	if len(r.x.byDir[spec]) > 0 {
		return spec
	}
	return "\x00" // no such directory
}

// goMod finds the go.mod governing dir: its directory and module path.
func (r *relater) goMod(dir string) [2]string {
	if r.goMods == nil {
		r.goMods = map[string][2]string{}
	}
	if m, ok := r.goMods[dir]; ok {
		return m
	}
	var m [2]string
	for _, d := range append([]string{dir}, ancestors(dir)...) {
		e := r.x.byPath[path.Join(d, "go.mod")]
		if e == nil {
			continue
		}
		if lines, err := r.s.blobLines(e.Path, e.Blob); err == nil {
			for _, l := range lines {
				if f := strings.Fields(l); len(f) >= 2 && f[0] == "module" {
					m = [2]string{d, strings.Trim(f[1], `"`)}
					break
				}
			}
		}
		break
	}
	r.goMods[dir] = m
	return m
}

type importer struct {
	file *store.ViewEntry
	via  string
}

// importers finds files that import or link to e. Candidates are the
// files whose text has the words of e's name (a Go package's name, a
// file's base name), best-scoring for the query first; each is read and
// its imports resolved, so only real references count.
func (r *relater) importers(e *store.ViewEntry, lang string) ([]importer, error) {
	name := strings.TrimSuffix(path.Base(e.Path), path.Ext(e.Path))
	selfDir := chunk.Dir(e.Path)
	if lang == "go" {
		if strings.HasSuffix(e.Path, "_test.go") {
			return nil, nil // tests are not imported
		}
		mod := r.goMod(selfDir)
		name = path.Base(selfDir)
		if selfDir == mod[0] && mod[1] != "" {
			name = path.Base(mod[1])
		}
		if selfDir == "" {
			return nil, nil
		}
	}
	// The name's parts: the analyzer keeps a compound (a-b-c) whole as
	// well, but in a link it is glued to its extension, so it would miss.
	var words []string
	for _, w := range segment.Tiny().Terms(name) {
		if !strings.ContainsAny(w, "-_.") {
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return nil, nil
	}
	v := r.req.View
	// Chunks that have every word of the name.
	var cands *roaring.Bitmap
	for _, w := range words {
		bm := roaring.New()
		if err := r.s.eachPosting(r.req, w, func(p store.Posting) { bm.Add(p.Chunk) }); err != nil {
			return nil, err
		}
		if cands == nil {
			cands = bm
		} else {
			cands.And(bm)
		}
	}
	type cand struct {
		e     *store.ViewEntry
		score float64
	}
	seen := map[string]bool{}
	var files []cand
	it := cands.Iterator()
	for it.HasNext() {
		f := entryOf(v, it.Next())
		if f == nil || seen[f.Path] || f.Path == e.Path || chunk.Lang(f.Path) != lang {
			continue
		}
		if lang == "go" && chunk.Dir(f.Path) == selfDir {
			continue // the same package
		}
		seen[f.Path] = true
		files = append(files, cand{f, r.best[f.Path].score})
	}
	sort.SliceStable(files, func(i, j int) bool {
		return files[i].score > files[j].score || files[i].score == files[j].score && files[i].e.Path < files[j].e.Path
	})
	var out []importer
	for i, c := range files {
		if i >= relatedMaxReads || len(out) >= relatedPerKind {
			break
		}
		m, err := r.s.blobMeta(c.e.Blob)
		if err != nil {
			return nil, err
		}
		lines, err := r.s.blobLines(c.e.Path, c.e.Blob)
		if err != nil {
			return nil, err
		}
		for _, imp := range chunk.Imports(m.Lang, strings.Join(lines, "\n")) {
			if refersTo(r.resolve(c.e.Path, m.Lang, imp), e, lang) {
				out = append(out, importer{c.e, imp.Spec})
				break
			}
		}
	}
	return out, nil
}

// refersTo says whether resolved names e: the file itself, or for Go its
// package.
func refersTo(resolved []*store.ViewEntry, e *store.ViewEntry, lang string) bool {
	for _, f := range resolved {
		if f.Path == e.Path || lang == "go" && chunk.Dir(f.Path) == chunk.Dir(e.Path) {
			return true
		}
	}
	return false
}
