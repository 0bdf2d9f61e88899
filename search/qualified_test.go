package search

import (
	"slices"
	"testing"
)

func TestQualifiedNames(t *testing.T) {
	for text, want := range map[string][]string{
		"filepath.Glob 通配符匹配":          {"filepath.Glob"},
		"errors.Is 如何沿着 Unwrap 链比较":    {"errors.Is"},
		"http.Client.Do 的重定向和 io.Copy": {"http.Client.Do", "io.Copy"},
		"sync.Once 和 sync.Once 的 Do":   {"sync.Once"},
		"（sync.WaitGroup）为什么阻塞":        {"sync.WaitGroup"},
		"b.n 迭代次数, os.getenv, Foo.Bar": nil,          // lower-case names, an upper-case "package"
		"a.b.C 和 x.y.Z.W":              nil,          // inside a longer dotted word
		"golang.org/x/net.Dial":        {"net.Dial"}, // an import path's last element
		"配置文件 config.yaml 在哪":          nil,
		"net/http.ServeMux 的路由":        {"http.ServeMux"},
	} {
		var got []string
		for _, n := range qualifiedNames(text) {
			got = append(got, n.String())
		}
		if !slices.Equal(got, want) {
			t.Errorf("qualifiedNames(%q) = %v, want %v", text, got, want)
		}
	}
}
