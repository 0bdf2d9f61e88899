package expand

import (
	"strconv"
	"strings"
)

// Durations and counts in Chinese numerals (十分钟, 两小时, 三十秒) are
// written with digits in docs and configuration (10 分钟, 10m0s): a
// question's numeral gains the digit forms, the unit kept, and for
// durations Go's time.Duration spelling (10m0s, 2h0m0s, 30s), which
// configuration files and system variables of Go programs show.

var zhDigit = map[rune]int{'零': 0, '一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}

// durationUnits are the units a numeral is read with (durations, and
// the counts ops questions give: 三副本, 两节点), with Go's spelling of a
// duration of n of them (nil for none).
var durationUnits = []struct {
	zh     string
	goForm func(n int) string
}{
	{"分钟", func(n int) string { return strconv.Itoa(n) + "m0s" }},
	{"小时", func(n int) string { return strconv.Itoa(n) + "h0m0s" }},
	{"秒钟", func(n int) string { return strconv.Itoa(n) + "s" }},
	{"秒", func(n int) string { return strconv.Itoa(n) + "s" }},
	{"毫秒", func(n int) string { return strconv.Itoa(n) + "ms" }},
	{"天", nil},
	{"个月", nil},
	{"周", nil},
	{"副本", nil},
	{"节点", nil},
}

// zhNumber reads a Chinese numeral of 1 to 99 at the start of rs: 三,
// 十, 十五, 二十, 三十五, 两. It returns the value and the characters read.
func zhNumber(rs []rune) (int, int) {
	i, n := 0, 0
	if i < len(rs) {
		if d, ok := zhDigit[rs[i]]; ok {
			n, i = d, i+1
		}
	}
	if i < len(rs) && rs[i] == '十' {
		if i == 0 {
			n = 1
		}
		n, i = n*10, i+1
		if i < len(rs) {
			if d, ok := zhDigit[rs[i]]; ok && rs[i] != '两' {
				n, i = n+d, i+1
			}
		}
	}
	if n == 0 {
		return 0, 0
	}
	return n, i
}

// numeralPart are the characters a numeral read here must not follow: it
// would be the tail of a longer number (一百二十秒 is 120 seconds, not
// 20; 一百零五, 一点五 1.5, 几十 "some tens"), which zhNumber does not read.
var numeralPart = map[rune]bool{
	'零': true, '〇': true, '一': true, '二': true, '两': true, '三': true, '四': true, '五': true, '六': true, '七': true, '八': true, '九': true,
	'十': true, '百': true, '千': true, '万': true, '亿': true, '点': true, '几': true,
}

// numbers finds numerals with a unit in rs, a run of Han characters: a
// numeral inside a longer one (the 五 of 十五) is not read again, and a
// numeral with no unit (十分 "very") is no number.
func numbers(rs []rune) []hanMatch {
	var out []hanMatch
	for i := 0; i < len(rs); i++ {
		n, l := zhNumber(rs[i:])
		if l == 0 || i > 0 && numeralPart[rs[i-1]] {
			continue
		}
		rest := string(rs[i+l : min(len(rs), i+l+2)]) // the units are at most two characters
		for _, u := range durationUnits {
			if !strings.HasPrefix(rest, u.zh) {
				continue
			}
			to := strconv.Itoa(n) + " " + u.zh
			if u.goForm != nil {
				to += "|" + u.goForm(n)
			}
			out = append(out, hanMatch{string(rs[i:i+l]) + u.zh, to, SourceParaphrase})
			i += l - 1
			break
		}
	}
	return out
}
