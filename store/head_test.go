package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
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
		// The same meta as format 2 wrote it: the whole of it in JSON.
		legacy, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.BlobEncoded(SHA{byte(i + 1), 2}, BlobHeader{Seg: seg, First: first + uint32(i), N: 1}, legacy); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	for i, m := range metas {
		for _, blob := range []SHA{{byte(i + 1)}, {byte(i + 1), 2}} {
			full, err := db.BlobMeta(1, blob)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(full, m) {
				t.Errorf("meta %d (%x): read back\n%+v\nwant\n%+v", i, blob[:2], full, m)
			}
			head, err := db.BlobHead(1, blob)
			if err != nil {
				t.Fatal(err)
			}
			for idx := -1; idx <= len(full.Chunks); idx++ {
				c, ok, err := db.BlobChunk(1, blob, idx)
				if err != nil {
					t.Fatal(err)
				}
				if want := idx >= 0 && idx < len(full.Chunks); ok != want {
					t.Errorf("meta %d (%x) chunk %d: ok %v, want %v", i, blob[:2], idx, ok, want)
				} else if ok && !reflect.DeepEqual(c, full.Chunks[idx]) {
					t.Errorf("meta %d (%x) chunk %d: %+v, want %+v", i, blob[:2], idx, c, full.Chunks[idx])
				}
			}
			// BlobChunks: every index at once, in any order, as BlobChunk.
			var idxs []int
			for idx := len(full.Chunks); idx >= -1; idx-- {
				idxs = append(idxs, idx)
			}
			idxs = append(idxs, 0, len(full.Chunks)-1) // asked twice
			cs, oks, err := db.BlobChunks(1, blob, idxs)
			if err != nil {
				t.Fatal(err)
			}
			for k, idx := range idxs {
				c, ok, _ := db.BlobChunk(1, blob, idx)
				if oks[k] != ok || !reflect.DeepEqual(cs[k], c) {
					t.Errorf("meta %d (%x) BlobChunks chunk %d: %+v %v, BlobChunk %+v %v", i, blob[:2], idx, cs[k], oks[k], c, ok)
				}
			}
			full.Chunks, full.Secrets = nil, nil
			if !reflect.DeepEqual(head, full) {
				t.Errorf("meta %d (%x): head\n%+v\nwant\n%+v", i, blob[:2], head, full)
			}
		}
	}
	db.Close()
}

// A packed metadata record of a file with many chunks is much smaller
// than its JSON, and a damaged one is an error, not a wrong answer.
func TestPackedBlobMeta(t *testing.T) {
	m := &BlobMeta{Lang: "go", MinHash: make([]byte, 4*MinHashSize)}
	for i := 0; i < 200; i++ {
		m.Chunks = append(m.Chunks, ChunkMeta{Start: i * 20, End: i*20 + 19, Heading: fmt.Sprintf("func (r *objReader) step%d(b []byte) error", i),
			Symbols: []string{fmt.Sprintf("objReader.step%d", i)}, Hash: fmt.Sprintf("%024x", i*7919)})
	}
	packed, err := EncodeBlobMeta(m)
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := json.Marshal(m)
	if len(packed)*2 > len(plain) {
		t.Errorf("packed record %d bytes, JSON %d: want at most half", len(packed), len(plain))
	}
	var got BlobMeta
	if err := decodeBlobMeta(packed, &got); err != nil || !reflect.DeepEqual(&got, m) {
		t.Fatalf("decode: %v\n%+v", err, got)
	}
	if err := decodeBlobMeta(packed[:len(packed)-7], &got); err == nil {
		t.Error("a truncated record decoded")
	}
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

// nthChunk finds each element of the chunk list that json.Unmarshal
// finds, and leaves lists it cannot walk to json.Unmarshal.
func TestNthChunk(t *testing.T) {
	for _, in := range []string{
		`{"lang":"go","chunks":[{"s":1,"h":"]\"["}, {"s":2,"sym":["}","{"]} ,{"s":3}],"mh":"AQ=="}`,
		`{"meta":{"chunks":"[{\"s\":9}]"},"chunks":[{"s":1,"h":"a\\"},{"s":2,"h":"]\\\"]"}]}`,
		`{"chunks":[]}`,
		`{"lang":"go"}`,
	} {
		var m BlobMeta
		if err := json.Unmarshal([]byte(in), &m); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		for idx := -1; idx <= len(m.Chunks); idx++ {
			elem, ok, walked := nthChunk([]byte(in), idx)
			if !walked && len(m.Chunks) > 0 {
				t.Errorf("%s: not walked", in)
				continue
			}
			if want := idx >= 0 && idx < len(m.Chunks); ok != want {
				t.Errorf("%s chunk %d: ok %v, want %v", in, idx, ok, want)
				continue
			}
			if ok {
				var c ChunkMeta
				if err := json.Unmarshal(elem, &c); err != nil || !reflect.DeepEqual(c, m.Chunks[idx]) {
					t.Errorf("%s chunk %d: %s decodes to %+v (%v), want %+v", in, idx, elem, c, err, m.Chunks[idx])
				}
			}
		}
		// All at once, in any order, some twice: one walk finds each.
		idxs := []int{len(m.Chunks), -1}
		for idx := len(m.Chunks) - 1; idx >= 0; idx-- {
			idxs = append(idxs, idx, idx)
		}
		elems, walked := nthChunks([]byte(in), idxs)
		if !walked && len(m.Chunks) > 0 {
			t.Errorf("%s: nthChunks did not walk", in)
		}
		for k, idx := range idxs {
			if want := idx >= 0 && idx < len(m.Chunks); (elems[k] != nil) != want {
				t.Errorf("%s: nthChunks chunk %d: found %v, want %v", in, idx, elems[k] != nil, want)
			} else if want {
				var c ChunkMeta
				if err := json.Unmarshal(elems[k], &c); err != nil || !reflect.DeepEqual(c, m.Chunks[idx]) {
					t.Errorf("%s: nthChunks chunk %d: %s decodes to %+v (%v), want %+v", in, idx, elems[k], c, err, m.Chunks[idx])
				}
			}
		}
	}
	for _, in := range []string{`{"chunks":[1,2]}`, `{"chunks":null}`, `{"chunks":[{"s":1`, `{"chunks":[{"s":1}`} {
		if _, ok, walked := nthChunk([]byte(in), 0); ok || walked {
			t.Errorf("nthChunk(%s, 0) = ok %v, walked %v; want false, false", in, ok, walked)
		}
	}
}

// TestDamagedLengthIsAnError: a length read from a damaged record (huge,
// or past int's range and so negative) is an error of the record, not an
// allocation of that size or a panic.
func TestDamagedLengthIsAnError(t *testing.T) {
	for _, n := range []uint64{1 << 40, 1<<63 + 5} {
		b := binary.AppendUvarint([]byte{metaPacked}, n)
		b = append(b, `{"lang":"go"}`...)
		if _, _, err := splitMeta(b, true); err == nil {
			t.Errorf("length %d: no error", n)
		}
		r := reader{b: binary.AppendUvarint(nil, n)}
		if s := r.string(); s != "" || r.err == nil {
			t.Errorf("length %d: string %q, err %v", n, s, r.err)
		}
	}
}

// nthChunk is nthChunks for one index (the tests' and the benchmark's
// walk per index), and whether the list has it.
func nthChunk(b []byte, idx int) (elem []byte, ok, walked bool) {
	elems, walked := nthChunks(b, []int{idx})
	return elems[0], elems[0] != nil, walked
}
