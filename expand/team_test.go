package expand

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func parseTeam(t *testing.T, text string) *Synonyms {
	t.Helper()
	s, err := ParseSynonyms(strings.NewReader(text), "team.txt")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// teamAdds is what s adds for each key a question holds: key -> words.
func teamAdds(s *Synonyms, q string) map[string]string {
	out := map[string]string{}
	for _, e := range s.Expand(q) {
		if e.Source != SourceTeam {
			panic(e.Source)
		}
		out[e.From] = strings.Join(e.To, "|")
	}
	return out
}

func TestSynonymsFormat(t *testing.T) {
	s := parseTeam(t, "\uFEFF# the team's words\n\n"+
		"熔断, circuitbreaker, circuit breaker\n"+
		"挂了、掉线 => 不健康, unhealthy   \n"+
		"北極星，polaris\n"+ // traditional characters and a full-width comma
		"熔断 => 降级   # a comment after a space\n"+ // a key of two entries adds the words of both
		"C#, csharp\n") // a # inside a word is no comment
	if s.Len() != 9 {
		t.Errorf("%d keys, want 9 (熔断 circuitbreaker, circuit breaker, 挂了, 掉线, 北极星, polaris, c#, csharp)", s.Len())
	}
	for q, want := range map[string]map[string]string{
		// Equivalent: each finds the others, in file order.
		"服务熔断是怎么实现的":                  {"熔断": "circuitbreaker|circuit breaker|降级"},
		"where is the CircuitBreaker": {"circuitbreaker": "熔断|circuit breaker"},
		// Separators between Latin words do not matter.
		"circuit-breaker 的配置":    {"circuit breaker": "熔断|circuitbreaker"},
		"Circuit_Breaker config": {"circuit breaker": "熔断|circuitbreaker"},
		// One way: the left finds the right, not the reverse.
		"实例挂了怎么办":     {"挂了": "不健康|unhealthy"},
		"实例掉线":        {"掉线": "不健康|unhealthy"},
		"实例不健康":       {},
		"北極星的注册中心":    {"北极星": "polaris"},
		"POLARIS 部署":  {"polaris": "北极星"},
		"csharp 的客户端": {"csharp": "C#"},
		"C#的客户端":      {"C#": "csharp"},
		"C 语言的客户端":    {},
	} {
		got := teamAdds(s, q)
		if len(got) != len(want) {
			t.Errorf("%s: %v, want %v", q, got, want)
			continue
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %s -> %q, want %q", q, k, got[k], v)
			}
		}
	}
}

// Latin keys need word boundaries; Chinese keys match inside a run; the
// longest of overlapping keys wins.
func TestSynonymsMatching(t *testing.T) {
	s := parseTeam(t, "lb => 负载均衡\n查询 => query\n慢查询 => slow query, slowlog\nk8s集群 => kubernetes\n")
	for q, want := range map[string]string{
		"lb 挂了":         "lb",
		"配置 LB":         "lb",
		"lbs 的配置":       "",
		"the lb's port": "lb",
		"blb":           "",
		"怎么查询数据":        "查询",
		"慢查询日志在哪":       "慢查询",
		"k8s集群里部署":      "k8s集群",
		"ak8s集群":        "",
	} {
		got := teamAdds(s, q)
		keys := []string{}
		for k := range got {
			keys = append(keys, k)
		}
		if strings.Join(keys, ",") != want {
			t.Errorf("%q: keys %v, want %q", q, keys, want)
		}
	}
	// Left to right, the longest key at each place: k8s集群 (5 characters,
	// more bytes than 集群管理's 4 only by chance) is taken first.
	s2 := parseTeam(t, "k8s集群 => kubernetes\n集群管理 => cluster manager\nc, clang\nlb => 负载均衡\nカナリア => canary\ncafe\u0301 => coffee\n")
	for q, want := range map[string]string{
		"k8s集群管理":        "k8s集群",
		"C++ 怎么用":        "",
		"C# 怎么用":         "",
		"c 语言":           "c",
		"服务lb挂了":         "lb",
		"カナリアリリース":       "カナリア",
		"café 的菜单":       "caf\u00e9", // the key as the file wrote it, composed (NFC)
		"cafe\u0301 的菜单": "caf\u00e9",
	} {
		keys := []string{}
		for k := range teamAdds(s2, q) {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if strings.Join(keys, ",") != want {
			t.Errorf("%q: keys %v, want %q", q, keys, want)
		}
	}

	// Both keys where each stands alone.
	if got := teamAdds(s, "慢查询和普通查询"); len(got) != 2 {
		t.Errorf("慢查询和普通查询: %v, want 慢查询 and 查询", got)
	}
}

func TestSynonymsErrors(t *testing.T) {
	for text, want := range map[string]string{
		"# ok\n熔断\n":                               `team.txt:2: "熔断" alone`,
		"熔断 =>\n":                                  "team.txt:1: both sides of => need a word",
		"=> 熔断\n":                                  "team.txt:1: both sides of => need a word",
		"a => b => c\n":                            "team.txt:1: more than one =>",
		"库, 数据库\n":                                 `team.txt:1: "库" is one Chinese character`,
		"熔断,, circuitbreaker\n":                    "team.txt:1: an empty word between commas",
		"a, b, c, d, e, f, g, h, i\n":              "team.txt:1: 9 words on one side (at most 8)",
		"ok, fine\n\xff\xfe => x\n":                "team.txt:2: not UTF-8 text",
		"--, ..\n":                                 `team.txt:1: "--" has no letter, digit or Chinese character`,
		"++, #\n":                                  `team.txt:1: "++" has no letter, digit or Chinese character`,
		"a\\,b, c\n":                               "team.txt:1: a backslash",
		"l\x00b, x\n":                              "team.txt:1: not UTF-8 text",
		"x, " + strings.Repeat("长", 65) + "\n":     "is longer than 64 characters",
		"x, " + strings.Repeat("y", 70<<10) + "\n": "team.txt:1: a line longer than 64 KiB",
		manyLines("lb => w%d\n", 40):               "team.txt:33: \"lb\" gathers more than 32 words over this line and the ones before (the first at line 1)",
	} {
		_, err := ParseSynonyms(strings.NewReader(text), "team.txt")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
	// A comment after a full-width ＃ or an ideographic space, as a
	// Chinese input method types them, is a comment; words that fold
	// alike are kept as written.
	s := parseTeam(t, "熔断, circuitbreaker　＃ 注释\n熔断 => 降级 ＃ 注释\na => b, B\n")
	if got := teamAdds(s, "熔断"); got["熔断"] != "circuitbreaker|降级" {
		t.Errorf("full-width comments: 熔断 -> %q", got["熔断"])
	}
	if got := teamAdds(s, "a"); got["a"] != "b|B" { // as written: the analyzer cuts HealthCheck, not healthcheck
		t.Errorf("a => b, B: a -> %q", got["a"])
	}

	// Spellings of one word add nothing to each other, and are no error.
	s = parseTeam(t, "TiDB Lightning, tidb-lightning\na => A\nTiDB Lightning, lightning\n")
	if got := teamAdds(s, "tidb-lightning 导入"); got["TiDB Lightning"] != "lightning" || len(got) != 1 {
		t.Errorf("spellings of one word: %v", got)
	}
	if got := teamAdds(s, "a"); len(got) != 0 {
		t.Errorf("a => A: %v", got)
	}

	// An empty file, or one of comments only, is no error and adds nothing.
	s = parseTeam(t, "# nothing yet\n")
	if s.Len() != 0 || s.Expand("熔断") != nil {
		t.Errorf("comments only: %d keys", s.Len())
	}
	var none *Synonyms
	if none.Expand("熔断") != nil || none.Len() != 0 {
		t.Error("a nil Synonyms adds words")
	}
}

// manyLines is format filled with 0..n-1, one after another.
func manyLines(format string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, format, i)
	}
	return b.String()
}
