package share

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/store"
)

func sampleRecord() *Record {
	r := &Record{
		Size: 120,
		Meta: &store.BlobMeta{Lang: "markdown", Title: "发布回滚手册", Meta: map[string]string{"owner": "sre", "a": "b"},
			Chunks: []store.ChunkMeta{{Start: 1, End: 4, Heading: "何时回滚", Hash: "aa"}, {Start: 5, End: 9, Hash: "bb"}}},
		Lens: []uint32{3, 2},
		Chunks: [][]index.TermTF{
			{{Term: "回滚", TF: [store.NumFields]uint16{2, 1, 0, 0}}, {Term: "发布", TF: [store.NumFields]uint16{1, 0, 0, 0}}, {Term: "md", TF: [store.NumFields]uint16{0, 0, 1, 0}}},
			{{Term: "回滚", TF: [store.NumFields]uint16{1, 0, 0, 0}}, {Term: "步骤", TF: [store.NumFields]uint16{1, 0, 0, 0}}, {Term: "md", TF: [store.NumFields]uint16{0, 0, 1, 0}}},
		},
	}
	for _, c := range r.Chunks {
		sortTerms(c)
	}
	r.Header = store.BlobHeader{N: 2, FieldLen: [store.NumFields]uint32{5, 1, 2, 0}, UniqueTerm: 4}
	return r
}

func sortTerms(ts []index.TermTF) {
	for i := range ts {
		for j := i + 1; j < len(ts); j++ {
			if ts[j].Term < ts[i].Term {
				ts[i], ts[j] = ts[j], ts[i]
			}
		}
	}
}

func TestRecordRoundTripIsDeterministic(t *testing.T) {
	r := sampleRecord()
	a, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeRecord(a)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, r) {
		t.Fatalf("round trip changed the record:\n%+v\n%+v", back, r)
	}
	b, _ := back.Encode()
	if !bytes.Equal(a, b) {
		t.Fatal("encoding is not deterministic")
	}
}

// Every truncation of a record and every single-byte change is either
// refused with errCorrupt or decodes to a self-consistent record; none
// panics.
func TestDamagedRecordsAreRefused(t *testing.T) {
	a, _ := sampleRecord().Encode()
	for n := 0; n < len(a); n++ {
		if _, err := DecodeRecord(a[:n]); !errors.Is(err, errCorrupt) {
			t.Fatalf("truncated to %d of %d bytes: err %v", n, len(a), err)
		}
	}
	if _, err := DecodeRecord(append(append([]byte(nil), a...), 0)); !errors.Is(err, errCorrupt) {
		t.Fatalf("trailing byte: err %v", err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	refused := 0
	for i := 0; i < 5000; i++ {
		b := append([]byte(nil), a...)
		b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
		if _, err := DecodeRecord(b); err != nil {
			refused++
		}
	}
	// A changed letter of a term or heading is still a well-formed record
	// (git's object names guard transport; --verify guards content), but
	// structure damage is caught: most changes are.
	if refused < 2500 {
		t.Errorf("only %d of 5000 damaged records refused", refused)
	}
}

func TestVectorShapeChecked(t *testing.T) {
	v := &Vectors{Dim: 3, Rows: [][]byte{{1, 2, 3, 4, 5, 6, 7}, {1, 2, 3, 4, 5, 6, 7}}}
	b := v.Encode()
	back, err := DecodeVectors(b)
	if err != nil || back.Dim != 3 || len(back.Rows) != 2 {
		t.Fatalf("round trip: %v %+v", err, back)
	}
	for _, bad := range [][]byte{b[:len(b)-1], append(append([]byte(nil), b...), 9), b[:5]} {
		if _, err := DecodeVectors(bad); !errors.Is(err, errCorrupt) {
			t.Errorf("%d bytes: err %v", len(bad), err)
		}
	}
}

func TestParsePath(t *testing.T) {
	var blob store.SHA
	blob[0], blob[19] = 0xab, 0x01
	if k, _, b, ok := parsePath(recordPath(blob)); !ok || k != "blobs" || b != blob {
		t.Fatalf("record path %s", recordPath(blob))
	}
	if k, m, b, ok := parsePath(vectorPath("0123456789abcdef", blob)); !ok || k != "vectors" || m != "0123456789abcdef" || b != blob {
		t.Fatal("vector path")
	}
	for _, p := range []string{"blobs/ab/xyz", "blobs/abc/" + "00000000000000000000000000000000000000", "etc/passwd", "vectors/x/ab/00"} {
		if _, _, _, ok := parsePath(p); ok {
			t.Errorf("%s accepted", p)
		}
	}
}
