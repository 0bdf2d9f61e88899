// Command gendict turns gse's simplified-Chinese dictionary into the sorted
// word/frequency table that package segment embeds (zhdict.txt), and the
// index of where each first character's words start in it (zhdict.idx).
//
// It loads the dictionary through gse itself, so the table holds exactly the
// words and frequencies gse would use (duplicates dropped, single characters
// forced to frequency 2, rare words filtered), and it records gse's total
// frequency, which every word's path cost depends on. Only words made of Han
// characters are listed: the analyzer hands gse nothing but Han runs, so no
// other word can ever match, though all of them count towards the total.
//
// Run it with `go generate ./segment`.
package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-ego/gse"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gendict OUTPUT")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "gendict:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/go-ego/gse").Output()
	if err != nil {
		return fmt.Errorf("locate gse module: %w", err)
	}
	src := filepath.Join(strings.TrimSpace(string(dir)), "data", "dict", "zh", "s_1.txt")
	raw, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	seg := gse.Segmenter{SkipLog: true, NotLoadHMM: true}
	if err := seg.LoadDictStr(string(raw)); err != nil {
		return fmt.Errorf("load %s: %w", src, err)
	}
	type entry struct {
		word string
		freq float64
	}
	var entries []entry
	maxLen := 0
	for i := range seg.Dict.Tokens {
		tok := &seg.Dict.Tokens[i]
		if !allHan(tok.Text()) {
			continue
		}
		entries = append(entries, entry{tok.Text(), tok.Freq()})
		maxLen = max(maxLen, utf8.RuneCountInString(tok.Text()))
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].word < entries[j].word })

	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "#total\t%s\t%d\n", strconv.FormatFloat(seg.Dict.TotalFreq(), 'g', -1, 64), maxLen)
	// Where each first character's words start, in bytes of the table
	// after its header line (see runeIndex below).
	starts := make([]uint32, indexHi-indexLo+1)
	next, off := rune(indexLo), 0
	for _, e := range entries {
		line := fmt.Sprintf("%s\t%s\n", e.word, strconv.FormatFloat(e.freq, 'g', -1, 64))
		first, _ := utf8.DecodeRuneInString(e.word)
		for ; next <= first && next <= indexHi; next++ {
			starts[next-indexLo] = uint32(off)
		}
		w.WriteString(line)
		off += len(line)
	}
	for ; next <= indexHi; next++ {
		starts[next-indexLo] = uint32(off)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return writeIndex(strings.TrimSuffix(out, ".txt")+".idx", starts)
}

// The first characters the index covers: CJK Extension A and the Unified
// Ideographs, all but a few dozen of the table's words. Words starting
// elsewhere are found by a search of the whole table.
const indexLo, indexHi = 0x3400, 0xA000

// writeIndex writes starts as little-endian uint32s: for each character r
// from indexLo to indexHi, the offset of the first word whose first
// character is r or later. Package segment embeds it (zhdict.idx) so that
// a lookup searches one character's words, not the 4 MB table.
func writeIndex(path string, starts []uint32) error {
	b := make([]byte, 4*len(starts))
	for i, s := range starts {
		binary.LittleEndian.PutUint32(b[4*i:], s)
	}
	return os.WriteFile(path, b, 0o644)
}

func allHan(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.Is(unicode.Han, r) {
			return false
		}
	}
	return true
}
