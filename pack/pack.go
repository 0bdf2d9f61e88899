// Package pack builds context packs (git kb context): the most relevant
// parts of a repository for a query, within a token budget, for an agent
// or a script to paste into a prompt.
//
// The budget is split (by default 0.6 / 0.35 / 0.05) between whole small
// documents (small: fitting three times into their share, so one long
// document cannot crowd out the rest), extracted sections, and a reserve
// for the framing. Retrieved chunks of one file that touch are merged into
// one section, and sections are taken breadth first (each file's best
// before any file's second), which covers more of the files the search
// found. Content seen twice (the same blob at two paths, the same text)
// is given once. Every block is
// headed by its citation. The rendered pack never exceeds the budget, as
// counted by the caller's tokenizer: the final text is counted, and blocks
// are dropped from the end until it fits.
package pack

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Counter counts tokens (cl100k-compatible BPE in git-kb).
type Counter interface{ Count(text string) int }

// Ratios split the budget: whole documents, sections, reserve. Unused
// whole-document budget goes to sections.
type Ratios struct{ Whole, Sections, Reserve float64 }

// DefaultRatios are the autocoder-style split.
var DefaultRatios = Ratios{0.6, 0.35, 0.05}

// ParseRatios reads "0.6,0.35,0.05".
func ParseRatios(s string) (Ratios, error) {
	var r Ratios
	if _, err := fmt.Sscanf(strings.ReplaceAll(s, " ", ""), "%f,%f,%f", &r.Whole, &r.Sections, &r.Reserve); err != nil {
		return r, fmt.Errorf("ratios %q: want three numbers like 0.6,0.35,0.05", s)
	}
	sum := r.Whole + r.Sections + r.Reserve
	if r.Whole < 0 || r.Sections < 0 || r.Reserve < 0 || sum < 0.99 || sum > 1.01 {
		return r, fmt.Errorf("ratios %q: want three non-negative shares adding up to 1", s)
	}
	return r, nil
}

// Candidate is a retrieved chunk, best first by Rank.
type Candidate struct {
	Path, Blob, Lang, Heading string
	Start, End                int // lines, 1-based inclusive
	Rank                      int
	// Rev, if set, is what the citation pins instead of the pack's
	// commit ("worktree" for an uncommitted file).
	Rev string
}

// Block is one piece of the pack.
type Block struct {
	Citation string `json:"citation"`
	Path     string `json:"path"`
	Start    int    `json:"start_line"`
	End      int    `json:"end_line"`
	Kind     string `json:"kind"` // document or section
	Heading  string `json:"heading,omitempty"`
	Lang     string `json:"lang,omitempty"`
	Tokens   int    `json:"tokens"`
	Text     string `json:"text"`
	rank     int
	nth      int // among its file's sections, by rank
}

// Pack is a built context pack.
type Pack struct {
	Query   string  `json:"query"`
	Commit  string  `json:"commit"`
	Budget  int     `json:"budget"`
	Tokens  int     `json:"tokens"` // of the rendered pack
	Format  string  `json:"format"`
	Blocks  []Block `json:"blocks"`
	Dropped int     `json:"dropped"` // candidate blocks that did not fit
	// Unread are the files left out because their text could not be read
	// (an UnreadableError: a damaged or missing git object), "path: why":
	// UnreadFiles as text, for the JSON output.
	Unread []string `json:"unread,omitempty"`
	// UnreadFiles are the same files, each with its error, for a caller
	// that tells them apart (which of the search's unread files the pack
	// names) by path rather than by text.
	UnreadFiles []UnreadFile `json:"-"`
}

// UnreadFile is a file left out of a pack: its text could not be read.
type UnreadFile struct {
	Path string
	Err  error // why: the UnreadableError's Err
}

// UnreadableError is an Options.Lines error for a file to leave out of the
// pack (Pack.UnreadFiles) rather than fail it: its text cannot be read (a
// damaged or missing git object), and the other files' can. Err says why.
type UnreadableError struct{ Err error }

func (e *UnreadableError) Error() string { return "unreadable: " + e.Err.Error() }
func (e *UnreadableError) Unwrap() error { return e.Err }

// Options configure Build.
type Options struct {
	Query, Commit string
	Budget        int
	Ratios        Ratios
	Format        string // markdown, json or xml
	Counter       Counter
	// Lines returns a blob's lines (the file at the commit).
	Lines func(blob string) ([]string, error)
}

// Build packs the candidates.
func Build(cands []Candidate, o Options) (*Pack, error) {
	if o.Ratios == (Ratios{}) {
		o.Ratios = DefaultRatios
	}
	p := &Pack{Query: o.Query, Commit: o.Commit, Budget: o.Budget, Format: o.Format, Blocks: []Block{}}
	if o.Budget <= 0 {
		return nil, fmt.Errorf("budget must be positive")
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].Rank < cands[j].Rank })
	files := byFile(cands, o.Commit)

	pk := &picker{seen: map[[32]byte]bool{}}
	wholeShare := int(float64(o.Budget) * o.Ratios.Whole)
	wholeLeft, whole, err := pk.wholeFiles(files, o, wholeShare)
	if err != nil {
		return nil, err
	}
	readable := files[:0]
	for _, f := range files {
		if f.unread != nil {
			p.UnreadFiles = append(p.UnreadFiles, UnreadFile{f.path, f.unread})
			p.Unread = append(p.Unread, f.path+": "+f.unread.Error())
			continue
		}
		readable = append(readable, f)
	}
	files = readable
	sectionLeft := int(float64(o.Budget)*o.Ratios.Sections) + wholeLeft
	for _, b := range breadthFirst(sections(files, whole)) {
		if pk.seen[sha256.Sum256([]byte(b.Text))] {
			continue
		}
		b.Tokens = o.Counter.Count(render(o.Format, []Block{b}))
		if b.Tokens <= sectionLeft {
			pk.add(b)
			sectionLeft -= b.Tokens
		} else {
			p.Dropped++
		}
	}
	sort.SliceStable(pk.picked, func(i, j int) bool { return pk.picked[i].rank < pk.picked[j].rank })
	if len(pk.picked) > 0 {
		p.Blocks = pk.picked // else [], not null, in JSON
	}
	return fit(p, o)
}

// packFile is one file of the candidates: its best rank and its chunks.
type packFile struct {
	path, blob, lang string
	rev              string // citation prefix
	rank             int
	spans            []Candidate
	lines            []string
	unread           error // why its lines could not be read (UnreadableError.Err)
}

// byFile groups the candidates (in rank order) by file, in order of each
// file's best rank. A blob already seen at another path adds nothing.
func byFile(cands []Candidate, commit string) []*packFile {
	var files []*packFile
	byPath := map[string]*packFile{}
	seenBlob := map[string]string{} // blob -> first path: a copy elsewhere adds nothing
	for _, c := range cands {
		if first, ok := seenBlob[c.Blob]; ok && first != c.Path {
			continue
		}
		seenBlob[c.Blob] = c.Path
		f := byPath[c.Path]
		if f == nil {
			f = &packFile{path: c.Path, blob: c.Blob, lang: c.Lang, rev: c.Rev, rank: c.Rank}
			if f.rev == "" {
				f.rev = commit
			}
			byPath[c.Path] = f
			files = append(files, f)
		}
		f.spans = append(f.spans, c)
	}
	return files
}

// picker holds the blocks picked so far, and their texts, so that the same
// text is never packed twice.
type picker struct {
	picked []Block
	seen   map[[32]byte]bool
}

func (pk *picker) add(b Block) {
	pk.picked = append(pk.picked, b)
	pk.seen[sha256.Sum256([]byte(b.Text))] = true
}

// wholeFiles reads each file's lines (kept for its sections) and packs the
// small files whole, within share tokens. It returns the tokens left and
// the files packed whole.
func (pk *picker) wholeFiles(files []*packFile, o Options, share int) (int, map[string]bool, error) {
	left := share
	whole := map[string]bool{}
	for _, f := range files {
		lines, err := o.Lines(f.blob)
		if ue := (*UnreadableError)(nil); errors.As(err, &ue) {
			f.unread = ue.Err
			continue
		}
		if err != nil {
			return 0, nil, err
		}
		f.lines = lines // read once: sections below cut from the same lines
		b := Block{Path: f.path, Start: 1, End: len(lines), Kind: "document", Lang: f.lang, rank: f.rank}
		b.Text = strings.Join(lines, "\n")
		b.Citation = fmt.Sprintf("%s:%s#L1-L%d", f.rev, f.path, len(lines))
		b.Tokens = o.Counter.Count(render(o.Format, []Block{b}))
		// Small means it fits three times into the whole-document share:
		// one long document must not crowd out the others.
		if b.Tokens <= left && b.Tokens*3 <= share && !pk.seen[sha256.Sum256([]byte(b.Text))] {
			pk.add(b)
			left -= b.Tokens
			whole[f.path] = true
		}
	}
	return left, whole, nil
}

// sections cuts the files not packed whole into sections: each file's
// chunks, merged where they touch or overlap.
func sections(files []*packFile, whole map[string]bool) []Block {
	var sections []Block
	for _, f := range files {
		if whole[f.path] {
			continue
		}
		lines := f.lines
		spans := append([]Candidate(nil), f.spans...)
		sort.Slice(spans, func(i, j int) bool { return spans[i].Start < spans[j].Start })
		for i := 0; i < len(spans); {
			s := spans[i]
			j := i + 1
			for ; j < len(spans) && spans[j].Start <= s.End+1; j++ {
				s.End = max(s.End, spans[j].End)
				s.Rank = min(s.Rank, spans[j].Rank)
				if s.Heading == "" {
					s.Heading = spans[j].Heading
				}
			}
			i = j
			lo, hi := max(1, s.Start), min(len(lines), s.End)
			if lo > hi {
				continue
			}
			b := Block{Path: f.path, Start: lo, End: hi, Kind: "section", Heading: s.Heading, Lang: f.lang, rank: s.Rank}
			b.Text = strings.Join(lines[lo-1:hi], "\n")
			b.Citation = fmt.Sprintf("%s:%s#L%d-L%d", f.rev, f.path, lo, hi)
			sections = append(sections, b)
		}
	}
	return sections
}

// breadthFirst orders sections so that every file's best section comes
// before any file's second: the pack covers more of the files the search
// found.
func breadthFirst(sections []Block) []Block {
	nth := map[string]int{}
	sort.SliceStable(sections, func(i, j int) bool { return sections[i].rank < sections[j].rank })
	for i := range sections {
		sections[i].nth = nth[sections[i].Path]
		nth[sections[i].Path]++
	}
	sort.SliceStable(sections, func(i, j int) bool {
		if sections[i].nth != sections[j].nth {
			return sections[i].nth < sections[j].nth
		}
		return sections[i].rank < sections[j].rank
	})
	return sections
}

// fit is the budget's guarantee: it counts the whole rendered pack and
// drops blocks from the end until it fits.
func fit(p *Pack, o Options) (*Pack, error) {
	for {
		// JSON shows the count itself: count until it is stable.
		for i, prev := 0, -1; i < 5 && p.Tokens != prev; i++ {
			prev, p.Tokens = p.Tokens, o.Counter.Count(Render(p))
		}
		if p.Tokens <= o.Budget {
			return p, nil
		}
		if len(p.Blocks) == 0 {
			return nil, fmt.Errorf("a budget of %d tokens does not hold even an empty pack (%d)", o.Budget, p.Tokens)
		}
		p.Blocks = p.Blocks[:len(p.Blocks)-1]
		p.Dropped++
	}
}
