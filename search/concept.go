package search

import "slices"

// conceptScores scores a word and its translations as one concept
// (lever "concept"): a chunk or file gets, for each of the user's words
// that has translations, the better of the word's own evidence and its
// translations' (the best translation plus conceptTie of the others:
// Lucene's DisjunctionMaxQuery, the usual way to score synonyms and
// fields). A chunk that says 删除 and delete counts the concept once, as
// a chunk that says only one of them; so a translation can weigh as much
// as the user's word without the bilingual chunks counting twice, which
// is what the low weights and the fading of plain expansion guard against.
type conceptScores struct {
	k       int    // concepts: the user's words that gained translations
	concept []int  // per postings list: its concept, -1 for none
	exp     []bool // per postings list: a translation
	// bit is each concept's coverage bit: its user word's, when the view
	// has that word (see lexicalStats); a translation found sets it too.
	bit []uint64
	// rows per chunk: own[0:k], best translation[k:2k], all translations[2k:3k]
	slot  []int32 // chunk -> 1 + row index, 0 for none
	rows  []float64
	files map[int][]float64 // view entry -> a row of the same shape
}

// newConceptScores maps the lists (in scoring order) to concepts; top is
// the largest chunk id among them. nil when no word gained translations.
//
// A concept whose word the analyzer cut into several of the user's terms
// (spans: 构建器 -> 构建, 器) has no term of its own; a translation found
// sets the coverage bits of the terms it spans, so a file that says
// builder covers the 构建 and the 器 of the question.
func newConceptScores(lists []termPostings, top uint32, spans map[string][]string) *conceptScores {
	ids := map[string]int{}
	for _, tp := range lists {
		if tp.term.from != "" && tp.term.from != feedbackFrom {
			if _, ok := ids[tp.term.from]; !ok {
				ids[tp.term.from] = len(ids)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	cs := &conceptScores{k: len(ids), concept: make([]int, len(lists)), exp: make([]bool, len(lists)),
		bit: make([]uint64, len(ids)), slot: make([]int32, top+1), files: map[int][]float64{}}
	rows := 0 // at most one row per posting of the concepts' lists
	for li, tp := range lists {
		cs.concept[li] = -1
		switch {
		case tp.term.from == "":
			if k, ok := ids[tp.term.term]; ok {
				cs.concept[li] = k
				if tp.idx < 64 {
					cs.bit[k] = 1 << tp.idx
				}
			}
			if tp.idx < 64 {
				for from, terms := range spans {
					if k, ok := ids[from]; ok && slices.Contains(terms, tp.term.term) {
						cs.bit[k] |= 1 << tp.idx
					}
				}
			}
		case tp.term.from != feedbackFrom:
			cs.concept[li], cs.exp[li] = ids[tp.term.from], true
		}
		if cs.concept[li] >= 0 {
			rows += len(tp.ps)
		}
	}
	// Room for every row at once: growing rows by appending copied it
	// over and over, into fresh pages each time (a tenth of a cold docs
	// search's CPU, page faults included). Pages of the capacity never
	// written are never touched.
	cs.rows = make([]float64, 0, min(rows, int(top)+1)*3*cs.k)
	return cs
}

// matchedBit is the coverage bit a match of list li sets: a translation
// counts as its user word found.
func (cs *conceptScores) matchedBit(li int) uint64 {
	if cs == nil || !cs.exp[li] {
		return 0
	}
	return cs.bit[cs.concept[li]]
}

// add records list li's score sc for chunk c, if li belongs to a concept.
func (cs *conceptScores) add(li int, c uint32, sc float64) bool {
	if cs == nil || cs.concept[li] < 0 {
		return false
	}
	if cs.slot[c] == 0 {
		cs.rows = append(cs.rows, make([]float64, 3*cs.k)...)
		cs.slot[c] = int32(len(cs.rows) / (3 * cs.k))
	}
	at := int(cs.slot[c]-1) * 3 * cs.k
	cs.put(cs.rows[at:at+3*cs.k], li, sc)
	return true
}

// addFile is add for a whole file (view entry i).
func (cs *conceptScores) addFile(li, i int, sc float64) bool {
	if cs.concept[li] < 0 {
		return false
	}
	row := cs.files[i]
	if row == nil {
		row = make([]float64, 3*cs.k)
		cs.files[i] = row
	}
	cs.put(row, li, sc)
	return true
}

func (cs *conceptScores) put(row []float64, li int, sc float64) {
	k := cs.concept[li]
	if cs.exp[li] {
		row[cs.k+k] = max(row[cs.k+k], sc)
		row[2*cs.k+k] += sc
	} else {
		row[k] += sc
	}
}

// gain is what chunk c's translations add beyond its own words.
func (cs *conceptScores) gain(c uint32) float64 {
	if cs.slot[c] == 0 {
		return 0
	}
	at := int(cs.slot[c]-1) * 3 * cs.k
	return cs.rowGain(cs.rows[at : at+3*cs.k])
}

func (cs *conceptScores) rowGain(row []float64) float64 {
	g := 0.0
	for k := 0; k < cs.k; k++ {
		best := row[cs.k+k]
		e := best + conceptTie*(row[2*cs.k+k]-best)
		g += max(0, e-row[k])
	}
	return g
}
