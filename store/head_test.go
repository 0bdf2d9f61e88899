package store

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// BlobHead decodes what BlobMeta decodes, less the chunks and redactions,
// also when titles, front-matter and headings hold JSON-looking text
// (quotes, brackets, backslashes, a "chunks" key inside meta).
func TestBlobHeadMatchesBlobMeta(t *testing.T) {
	tricky := `a "chunks":[1,2] \ \" ]} {[ 回滚\n`
	metas := []*BlobMeta{
		{Lang: "go", Chunks: []ChunkMeta{{Start: 1, End: 2, Hash: "x"}}},
		{Lang: "markdown", Title: tricky, Meta: map[string]string{"chunks": tricky, "tags": "[a, b]"}, Encoding: "gb18030", Kind: "data",
			Chunks:  []ChunkMeta{{Start: 1, End: 9, Heading: tricky, Symbols: []string{`"]`, `\`}, Hash: "h1"}, {Start: 10, End: 12, Heading: "}", Hash: "h2"}},
			Secrets: []Redaction{{Rule: "generic-password", Line: 3}}, MinHash: []byte(strings.Repeat("\x01\x7f\"", 32))},
		{Lang: "text", Title: "no chunks"},
		{Lang: "text", Chunks: []ChunkMeta{}, MinHash: []byte{1, 2, 3, 4}},
	}
	dir := t.TempDir()
	db := open(t, dir, false)
	seg, first, err := db.AllocSegment(uint32(len(metas)))
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch(1)
	for i, m := range metas {
		if err := b.Blob(SHA{byte(i + 1)}, BlobHeader{Seg: seg, First: first + uint32(i), N: 1}, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	for i := range metas {
		full, err := db.BlobMeta(1, SHA{byte(i + 1)})
		if err != nil {
			t.Fatal(err)
		}
		head, err := db.BlobHead(1, SHA{byte(i + 1)})
		if err != nil {
			t.Fatal(err)
		}
		full.Chunks, full.Secrets = nil, nil
		if !reflect.DeepEqual(head, full) {
			t.Errorf("meta %d: head\n%+v\nwant\n%+v", i, head, full)
		}
	}
	db.Close()
}

// withoutChunks leaves records it cannot walk as they are, for
// json.Unmarshal to judge.
func TestWithoutChunks(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"lang":"go","chunks":[{"s":1,"h":"]\"["}],"mh":"AQ=="}`, `{"lang":"go","chunks":[],"mh":"AQ=="}`},
		{`{"meta":{"chunks":[1]},"chunks":[2]}`, `{"meta":{"chunks":[1]},"chunks":[]}`},
		{`{"chunks":[{"h":"a\\"},{"h":"]\\\"]"}],"mh":"x"}`, `{"chunks":[],"mh":"x"}`},
		{`{"title":"\"chunks\":[","chunks":[]}`, `{"title":"\"chunks\":[","chunks":[]}`},
		{`{"lang":"go","chunks":null}`, `{"lang":"go","chunks":null}`},
		{`{"lang":"go","chunks":[{"s":1`, `{"lang":"go","chunks":[{"s":1`},
		{`{"lang":"go\`, `{"lang":"go\`},
		{``, ``},
	} {
		if got := string(withoutChunks([]byte(c.in))); got != c.want {
			t.Errorf("withoutChunks(%s) = %s, want %s", c.in, got, c.want)
		}
		if json.Valid([]byte(c.in)) && !json.Valid(withoutChunks([]byte(c.in))) {
			t.Errorf("withoutChunks(%s) made valid JSON invalid", c.in)
		}
	}
}
