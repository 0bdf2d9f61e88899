package review

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"time"
)

// blamedCommit is what git blame --porcelain says about a commit.
type blamedCommit struct {
	SHA, Author, Summary string
	Time                 time.Time
}

// parsePorcelain maps each blamed final line number to its commit, and
// each commit to its details (given once per commit in the output).
func parsePorcelain(out []byte) (map[int]string, map[string]*blamedCommit) {
	lines := map[int]string{}
	commits := map[string]*blamedCommit{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var cur *blamedCommit
	for sc.Scan() {
		s := sc.Text()
		if strings.HasPrefix(s, "\t") {
			continue // the line's content
		}
		f := strings.Fields(s)
		if len(f) >= 3 && len(f[0]) == 40 && isHex(f[0]) {
			final, err := strconv.Atoi(f[2])
			if err != nil {
				continue
			}
			lines[final] = f[0]
			cur = commits[f[0]]
			if cur == nil {
				cur = &blamedCommit{SHA: f[0]}
				commits[f[0]] = cur
			}
			continue
		}
		if cur == nil {
			continue
		}
		key, val, _ := strings.Cut(s, " ")
		switch key {
		case "author":
			cur.Author = val
		case "author-time":
			if sec, err := strconv.ParseInt(val, 10, 64); err == nil {
				cur.Time = time.Unix(sec, 0).UTC()
			}
		case "summary":
			cur.Summary = val
		}
	}
	return lines, commits
}

func isHex(s string) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
