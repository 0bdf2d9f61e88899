// Package table builds the sorted lookup tables the expand package
// embeds: one "key<TAB>v1|v2" line per key, sorted bytewise after a
// header comment, so they are searched in place by bisection and never
// parsed whole at run time.
package table

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// MaxReverse bounds the Chinese terms one English word gains: one, its
// translation. Inverting a zh -> en table gives most English words
// several terms, and past the first they were other concepts the word is
// only part of (group -> 用户组, 消费组; leader -> 领导者选举; kv -> 键值对,
// 键值存储), each a wrong sense more often than a right one, and rare, so
// heavy where it matched. Measured with 3 (git kb eval, MRR@10 / Hit@10,
// with the whole-translation rule of Glossary): docs dev sets .787/.940
// -> .790/.948 with 1; Go and polaris unchanged (polaris-dev +.001).
const MaxReverse = 1

// Format renders m as a table with a header comment line.
func Format(header string, m map[string][]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("# " + header + "\n")
	for _, k := range keys {
		b.WriteString(k + "\t" + strings.Join(m[k], "|") + "\n")
	}
	return b.String()
}

// Glossary reads glossary.tsv (`中文<TAB>en1|en2` lines, # comments) into
// its two directions. The first entry of a Chinese term wins.
//
// For the reverse, an English word maps to the Chinese terms it
// translates whole: not to a term holding a shorter word, of two or more
// characters, that the glossary or general (CC-CEDICT's zh -> en, may be
// nil) translates with it, for then the word names that part and not the
// term (timestamp -> 时间戳, not 时间戳预言机 or 时间戳分配; encoding -> 编码,
// not 编码方式; cipher -> 加密, not 分组密码), unless the word is the term's
// only English (api -> 应用程序接口). An abbreviation names the whole
// (cas -> 比较并交换, ssa -> 静态单赋值): no part translates it. Of those
// left, the terms that list it earliest in their entry come first
// (position 0, then 1...), the shorter first among equals (string ->
// 字符串 before 字符串驻留: a compound names a narrower sense), then in the
// file's order, MaxReverse at most. A phrase maps back as a word does
// (garbage collection -> 垃圾回收, repeatable read -> 可重复读).
func Glossary(tsv string, general map[string][]string) (zh, en map[string][]string) {
	zh, en = map[string][]string{}, map[string][]string{}
	type rev struct {
		zh  string
		pos int
	}
	byEn := map[string][]rev{}
	var order []string
	for _, line := range strings.Split(tsv, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		var to []string
		for _, w := range strings.Split(v, "|") {
			if w = strings.ToLower(strings.TrimSpace(w)); w != "" && !contains(to, w) {
				to = append(to, w)
			}
		}
		if k == "" || len(to) == 0 {
			continue
		}
		if _, dup := zh[k]; !dup {
			zh[k] = to
		}
		for i, w := range to {
			if _, ok := byEn[w]; !ok {
				order = append(order, w)
			}
			byEn[w] = append(byEn[w], rev{k, i})
		}
	}
	// part reports whether a shorter word inside z translates w.
	part := func(w, z string) bool {
		rs := []rune(z)
		for i := range rs {
			for j := i + 2; j <= len(rs) && j-i < len(rs); j++ {
				if p := string(rs[i:j]); contains(zh[p], w) || contains(general[p], w) {
					return true
				}
			}
		}
		return false
	}
	for _, w := range order {
		rs := slices.DeleteFunc(byEn[w], func(r rev) bool { return len(zh[r.zh]) > 1 && part(w, r.zh) })
		sort.SliceStable(rs, func(i, j int) bool {
			if rs[i].pos != rs[j].pos {
				return rs[i].pos < rs[j].pos
			}
			return utf8.RuneCountInString(rs[i].zh) < utf8.RuneCountInString(rs[j].zh)
		})
		for _, r := range rs {
			if len(en[w]) < MaxReverse && !contains(en[w], r.zh) {
				en[w] = append(en[w], r.zh)
			}
		}
	}
	return zh, en
}

// Parse reads a table written by Format back into a map.
func Parse(t string) map[string][]string {
	m := map[string][]string{}
	for _, line := range strings.Split(t, "\n") {
		if k, v, ok := strings.Cut(line, "\t"); ok && !strings.HasPrefix(k, "#") {
			m[k] = strings.Split(v, "|")
		}
	}
	return m
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
