package segment

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/go-ego/gse"
)

func TestTerms(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string // must all be present
		absent   []string
	}{
		{"camelCase", "retryCount", []string{"retrycount", "retry", "count"}, nil},
		{"snake_case", "retry_count", []string{"retry_count", "retry", "count"}, nil},
		{"acronym", "HTTPServer", []string{"httpserver", "http", "server"}, nil},
		{"dotted", "git.PlainOpen()", []string{"git.plainopen", "git", "plain", "open"}, nil},
		{"version", "升级到 v7.5.0 后", []string{"v7.5.0", "升级"}, nil},
		{"error code", "报错 ERROR 1105 (HY000)", []string{"error", "1105", "hy000", "报错"}, nil},
		{"full width", "ＴｉＤＢ　集群", []string{"tidb", "集群"}, nil},
		{"stop words", "如何 the 配置", []string{"配置"}, []string{"如何", "the"}},
		{"one-word run", "配置", []string{"配置"}, []string{"配", "置"}},
		{"search mode", "中华人民共和国", []string{"中华人民共和国", "中华", "人民", "共和国"}, nil},
		{"plural", "files indexes policies", []string{"file", "index", "policy"}, nil},
		{"invalid utf8", "ok \xff\xfe 磁盘", []string{"ok", "磁盘"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Tiny().Terms(tt.in)
			set := map[string]bool{}
			for _, g := range got {
				set[g] = true
			}
			for _, w := range tt.want {
				if !set[w] {
					t.Errorf("Terms(%q) = %q, missing %q", tt.in, got, w)
				}
			}
			for _, w := range tt.absent {
				if set[w] {
					t.Errorf("Terms(%q) = %q, should not contain %q", tt.in, got, w)
				}
			}
		})
	}
}

// corpusSentences returns up to limit Han-bearing sentences of the shared
// Chinese docs corpus (skipping the test when it is absent).
func corpusSentences(t *testing.T, limit int) []string {
	t.Helper()
	dir := gittest.Clone(t, gittest.CorpusBundle(t, "tidb-docs-cn.bundle"))
	files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	var sents []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range strings.FieldsFunc(string(b), func(r rune) bool { return strings.ContainsRune("。！？；\n", r) }) {
			if HanBytes(s) >= 12 {
				sents = append(sents, s)
			}
			if len(sents) >= limit {
				return sents
			}
		}
	}
	return sents
}

func hanRuns(s string) []string {
	return strings.FieldsFunc(Normalize(s), func(r rune) bool { return !unicode.Is(unicode.Han, r) })
}

// TestTinyDictionaryEquivalence proves the design the CLI depends on: a
// dictionary holding only the words found in a text segments that text
// exactly as the full dictionary, and exactly as gse's own embedded one.
func TestTinyDictionaryEquivalence(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the full dictionary")
	}
	sents := corpusSentences(t, 5000)
	var genuine gse.Segmenter
	genuine.SkipLog, genuine.NotLoadHMM = true, true
	if err := genuine.LoadDictEmbed("zh_s"); err != nil || genuine.Dict.NumTokens() == 0 {
		t.Skip("gse built without embedded dictionaries (-tags ne)")
	}
	full := fullSegmenter()
	for _, s := range sents {
		runs := hanRuns(s)
		tiny := loadTable().tinySegmenter(nil, runs)
		for _, run := range runs {
			want := genuine.Cut(run)
			if got := full.Cut(run); !reflect.DeepEqual(got, want) {
				t.Fatalf("full table vs gse on %q:\n got %q\nwant %q", run, got, want)
			}
			if got := tiny.Cut(run); !reflect.DeepEqual(got, want) {
				t.Fatalf("tiny dictionary vs gse on %q:\n got %q\nwant %q", run, got, want)
			}
		}
		if a, b := Tiny().Terms(s), Full().Terms(s); !reflect.DeepEqual(a, b) {
			t.Fatalf("Tiny vs Full terms on %q:\n%q\n%q", s, a, b)
		}
	}
	t.Logf("%d sentences segmented identically", len(sents))
}

func FuzzTerms(f *testing.F) {
	for _, s := range []string{"发布失败后如何回滚", "retryCount", "\xff\xfe", "ＡＢＣ", "a.b-c_d", "v1.", "--", "中\x00文"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, term := range Tiny().Terms(s) {
			if term == "" {
				t.Fatalf("empty term from %q", s)
			}
		}
	})
}

func BenchmarkTerms(b *testing.B) {
	text := strings.Repeat("线上数据库连接池打满时，先检查慢查询，再调大 maxOpenConns 参数。", 50)
	b.Run("tiny", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			Tiny().Terms(text)
		}
	})
	b.Run("full", func(b *testing.B) {
		Full().Terms("预热")
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			Full().Terms(text)
		}
	})
}
