package org

import (
	"strings"
	"testing"
)

func TestObjectID(t *testing.T) {
	a := ObjectID("team/docs", "f978cdeb754d07c70c2a6479a2ea1fd040aa2dc8", 4, 0)
	if a != ObjectID("team/docs", "f978cdeb754d07c70c2a6479a2ea1fd040aa2dc8", 4, 0) {
		t.Fatal("not deterministic")
	}
	if len(a) != 36 || a[14] != '5' {
		t.Fatalf("%s is not a UUIDv5", a)
	}
	seen := map[string]bool{a: true}
	for _, b := range []string{
		ObjectID("team/other", "f978cdeb754d07c70c2a6479a2ea1fd040aa2dc8", 4, 0),
		ObjectID("team/docs", "0978cdeb754d07c70c2a6479a2ea1fd040aa2dc8", 4, 0),
		ObjectID("team/docs", "f978cdeb754d07c70c2a6479a2ea1fd040aa2dc8", 5, 0),
		ObjectID("team/docs", "f978cdeb754d07c70c2a6479a2ea1fd040aa2dc8", 4, 1),
	} {
		if seen[b] {
			t.Fatalf("two chunks share the id %s", b)
		}
		seen[b] = true
	}
}

func TestDialRefuses(t *testing.T) {
	for cfg, want := range map[Config]string{
		{}:                     "kb.org.url",
		{URL: "weaviate:8080"}: "want http://host:port",
		{URL: "http://h:8080", Collection: "lower"}: "collection name",
	} {
		if _, err := Dial(cfg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v, want %q", cfg, err, want)
		}
	}
	if _, err := Dial(Config{URL: "http://127.0.0.1:1"}); err != nil {
		t.Errorf("Dial touched the network or refused a good URL: %v", err)
	}
}

func TestFilterWhere(t *testing.T) {
	if (Filter{}).where() != nil {
		t.Fatal("an empty filter filters")
	}
	w := Filter{Repos: []string{"a", "b"}, NotRepos: []string{"c"}, PathLike: []string{"docs/*"}, Langs: []string{"go"}, Tags: []string{"x"}}.where().String()
	for _, s := range []string{`operator: Or`, `valueText: "a"`, `operator: Not`, `operator: Like`, `valueText: "docs/*"`, `path: ["lang"]`, `operator: ContainsAny`} {
		if !strings.Contains(w, s) {
			t.Errorf("where %s lacks %s", w, s)
		}
	}
}

func TestBatchSize(t *testing.T) {
	small := make([]Chunk, 250)
	if n := batchSize(small); n != MaxBatch {
		t.Errorf("small chunks: %d per request, want %d", n, MaxBatch)
	}
	big := []Chunk{{Text: strings.Repeat("x", MaxBatchBytes)}, {Text: "y"}, {Text: "z"}}
	if n := batchSize(big); n != 1 {
		t.Errorf("a chunk as large as a request: %d per request, want 1", n)
	}
	if n := batchSize(big[1:]); n != 2 {
		t.Errorf("two small chunks: %d", n)
	}
}
