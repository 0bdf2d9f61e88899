package gitx

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
)

// The in-process object reader parses files of the user's .git, which
// may be damaged. These fuzz its four parsers (pack index, pack entries
// with their delta chains, deltas, loose objects), seeded from a real
// repository's objects: whatever the bytes, a read returns an error or
// the object, never panics, loops or allocates more than the input can
// hold. `go test` runs the seeds and testdata/fuzz; `go test -fuzz
// FuzzPackEntry ./gitx` searches further.

// fuzzRepo is a small real repository's objects: loose, and packed by
// git with offset deltas and with reference deltas.
type fuzzRepo struct {
	objects map[Hash]fuzzObject
	names   []Hash                        // the objects', in order
	loose   [][]byte                      // raw loose object files
	packs   [2]struct{ idx, pack []byte } // offset deltas, reference deltas
}

type fuzzObject struct {
	typ  int
	data []byte
}

var fuzzRepoOnce struct {
	sync.Once
	r *fuzzRepo
}

// newFuzzRepo makes the repository once per process: the objects are
// kept in memory, its directory is not needed after.
func newFuzzRepo(f testing.TB) *fuzzRepo {
	fuzzRepoOnce.Do(func() { fuzzRepoOnce.r = makeFuzzRepo(f) })
	if fuzzRepoOnce.r == nil {
		f.Fatal("no repository to seed from")
	}
	return fuzzRepoOnce.r
}

func makeFuzzRepo(f testing.TB) *fuzzRepo {
	dir := gittest.New(f, map[string]string{"a.md": "# A\n", "b.go": "package b\n"})
	body := strings.Repeat("a line of the long file that changes a little each commit\n", 30)
	for i := range 8 {
		gittest.Commit(f, dir, fmt.Sprint(i), map[string]string{
			"long.md": body + strings.Repeat(fmt.Sprintf("edit %d\n", i), i+1),
			"a.md":    fmt.Sprintf("# A\n\nversion %d\n", i),
		})
	}
	r := &fuzzRepo{objects: map[Hash]fuzzObject{}}
	objects := filepath.Join(dir, ".git", "objects")
	loose, _ := filepath.Glob(filepath.Join(objects, "[0-9a-f][0-9a-f]", "*"))
	for _, l := range loose {
		r.loose = append(r.loose, must(os.ReadFile(l)))
	}
	types := map[string]int{"commit": objCommit, "tree": objTree, "blob": objBlob, "tag": objTag}
	cmd := exec.Command("git", "cat-file", "--batch-all-objects", "--batch") // gittest.Git trims the output
	cmd.Dir, cmd.Env = dir, gittest.Env()
	out := must(cmd.Output())
	for len(out) > 0 {
		line, rest, _ := bytes.Cut(out, []byte("\n"))
		var name, typ string
		var size int
		if _, err := fmt.Sscan(string(line), &name, &typ, &size); err != nil || len(rest) < size+1 {
			f.Fatalf("git cat-file --batch: %q: %v", line, err)
		}
		r.objects[ParseHash(name)] = fuzzObject{types[typ], rest[:size]}
		out = rest[size+1:]
	}
	for h := range r.objects {
		r.names = append(r.names, h)
	}
	slices.SortFunc(r.names, func(a, b Hash) int { return bytes.Compare(a[:], b[:]) })
	read := func() (idx, pack []byte) {
		idxs, _ := filepath.Glob(filepath.Join(objects, "pack", "pack-*.idx"))
		if len(idxs) != 1 {
			f.Fatalf("%d packs", len(idxs))
		}
		return must(os.ReadFile(idxs[0])), must(os.ReadFile(strings.TrimSuffix(idxs[0], ".idx") + ".pack"))
	}
	gittest.Git(f, dir, "gc", "-q", "--aggressive")
	r.packs[0].idx, r.packs[0].pack = read()
	gittest.Git(f, dir, "-c", "repack.useDeltaBaseOffset=false", "repack", "-adfq")
	r.packs[1].idx, r.packs[1].pack = read()
	return r
}

// memStore is an object store of one pack held in memory, with an empty
// directory for loose objects; a pack that does not match its index fails
// every read, as packFile makes it.
func memStore(dir string, idx, pack []byte) (*objectStore, error) {
	p, err := newPackIndex("fuzz.idx", bytes.NewReader(idx), int64(len(idx)))
	if err != nil {
		return nil, err
	}
	p.dataErr = p.setPack(bytes.NewReader(pack), int64(len(pack)))
	return &objectStore{dir: dir, packs: []*packIndex{p}, listed: true}, nil
}

// allocated is how many bytes fn allocates.
func allocated(fn func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// readBound is the most reading an object out of n bytes of input may
// allocate: what they inflate to, the buffers' doubling, and a MiB of
// buffers and zlib's state per object of a delta chain of up to chain.
func readBound(n, chain int) uint64 {
	return uint64(chain+1) * (2<<20 + 3*maxInflate*uint64(n))
}

// checkRead reads h from s: an error, or the object itself when its
// name checks, within readBound.
func (r *fuzzRepo) checkRead(t *testing.T, s *objectStore, h Hash, n int) {
	var typ int
	var data []byte
	var err error
	if a := allocated(func() { typ, data, err = s.read(h) }); a > readBound(n, len(r.objects)) {
		t.Fatalf("%s: %d bytes allocated reading from %d bytes", h, a, n)
	}
	if err == nil && objectName(typ, data) == h {
		if want := r.objects[h]; typ != want.typ || !bytes.Equal(data, want.data) {
			t.Fatalf("%s read as another object", h)
		}
	}
}

func FuzzPackIndex(f *testing.F) {
	r := newFuzzRepo(f)
	for v, p := range r.packs {
		f.Add(uint8(v), p.idx, r.names[0][:], uint16(1))
	}
	for _, c := range r.hostilePacks(f) {
		if bytes.Equal(c.pack, r.packs[c.v].pack) {
			f.Add(uint8(c.v), c.idx, c.h[:], uint16(slices.Index(r.names, c.h)))
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, v uint8, idx, name []byte, which uint16) {
		s, err := memStore(dir, idx, r.packs[v%2].pack)
		if err != nil {
			return
		}
		var h Hash
		copy(h[:], name)
		s.read(h)
		r.checkRead(t, s, r.names[int(which)%len(r.names)], len(idx)+len(r.packs[v%2].pack))
	})
}

func FuzzPackEntry(f *testing.F) {
	r := newFuzzRepo(f)
	for v, p := range r.packs {
		for i := range r.names {
			f.Add(uint8(v), p.pack, uint32(12), uint16(i))
		}
	}
	for _, c := range r.hostilePacks(f) {
		if bytes.Equal(c.idx, r.packs[c.v].idx) {
			f.Add(uint8(c.v), c.pack, uint32(c.off), uint16(slices.Index(r.names, c.h)))
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, v uint8, pack []byte, off uint32, which uint16) {
		s, err := memStore(dir, r.packs[v%2].idx, pack)
		if err != nil {
			t.Fatal(err) // the index is git's
		}
		if a := allocated(func() { s.readPacked(s.packs[0], int64(off)) }); a > readBound(len(pack), len(r.objects)) {
			t.Fatalf("at %d: %d bytes allocated reading from %d bytes", off, a, len(pack))
		}
		r.checkRead(t, s, r.names[int(which)%len(r.names)], len(pack))
	})
}

func FuzzApplyDelta(f *testing.F) {
	r := newFuzzRepo(f)
	// Every delta of both packs, with its base.
	for _, p := range r.packs {
		s := must(memStore(f.TempDir(), p.idx, p.pack))
		for h := range r.objects {
			pi, off, err := s.locate(h)
			if err != nil || pi == nil {
				f.Fatalf("%s: %v", h, err)
			}
			e := must(pi.entry(off))
			var base []byte
			switch e.typ {
			case objOfsDelta:
				_, base, err = s.readPacked(pi, e.baseOff)
			case objRefDelta:
				_, base, err = s.read(e.base)
			default:
				continue
			}
			if err != nil {
				f.Fatal(err)
			}
			f.Add(base, must(e.inflate()))
		}
	}
	f.Add([]byte("base"), []byte{4, 0x80, 0x90, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}) // 2^63 bytes out
	f.Add([]byte("base"), []byte{4, 0xff, 0xff, 0xff, 0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte("base"), []byte{4, 0xff, 0xff, 0xff, 0xff, 0x3f, 0x04, 'a', 'b', 'c', 'd'}) // 2^34 bytes from 12
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		var out []byte
		var err error
		a := allocated(func() { out, err = applyDelta(base, delta) })
		if bound := 1<<20 + 3*uint64(len(delta))*max(1, uint64(len(base))) + 2*uint64(len(base)+len(delta)); a > bound {
			t.Fatalf("%d bytes allocated applying %d bytes of delta to %d", a, len(delta), len(base))
		}
		if err == nil {
			_, n := binary.Uvarint(delta)
			if dst, _ := binary.Uvarint(delta[n:]); uint64(len(out)) != dst {
				t.Fatalf("%d bytes out, the delta says %d", len(out), dst)
			}
		}
	})
}

// FuzzLooseObject: raw is a loose object's file, or with inflated set
// what it inflates to (deflated here), so that mutations reach the
// header as well as zlib.
func FuzzLooseObject(f *testing.F) {
	r := newFuzzRepo(f)
	for _, raw := range r.loose {
		f.Add(raw, false)
		f.Add(must(io.ReadAll(must(zlib.NewReader(bytes.NewReader(raw))))), true)
	}
	raws, _ := hostileLoose()
	for _, raw := range raws {
		f.Add(raw, false)
	}
	f.Add([]byte("blob 1152921504606846976\x00short"), true)
	f.Add([]byte("tree 0\x00"), true)
	f.Fuzz(func(t *testing.T, raw []byte, inflated bool) {
		plain := raw
		if inflated {
			var b bytes.Buffer
			zw := zlib.NewWriter(&b)
			zw.Write(raw)
			zw.Close()
			raw = b.Bytes()
		}
		var typ int
		var data []byte
		var err error
		if a := allocated(func() { typ, data, err = parseLoose(bytes.NewReader(raw), int64(len(raw))) }); a > readBound(len(raw), 0) {
			t.Fatalf("%d bytes allocated reading %d bytes", a, len(raw))
		}
		// What was read is what was written, header and all (git reads
		// no other spelling of a header, such as a size of "05").
		if err == nil && inflated && typeName(typ)+" "+strconv.Itoa(len(data))+"\x00"+string(data) != string(plain) {
			t.Fatalf("%q read as a %s of %d bytes", plain, typeName(typ), len(data))
		}
		if err == nil {
			if h := objectName(typ, data); r.objects[h].typ != 0 && !bytes.Equal(r.objects[h].data, data) {
				t.Fatalf("%s read as another object", h)
			}
		}
	})
}

// packHeader encodes a pack entry's type and size.
func packHeader(typ int, size uint64) []byte {
	c := byte(typ<<4) | byte(size&15)
	var b []byte
	for size >>= 4; size > 0; size >>= 7 {
		b = append(b, c|0x80)
		c = byte(size & 0x7f)
	}
	return append(b, c)
}

// hostilePack is a damaged copy of one of the repository's packs (v) or
// of its index, and the object whose read the damage is in.
type hostilePack struct {
	name      string
	v         int
	idx, pack []byte
	h         Hash
	off       int64  // h's entry
	want      string // in the error
}

// hostilePacks damages the packs in the ways a file system or a bug
// could, each where an object's read meets it.
func (r *fuzzRepo) hostilePacks(t testing.TB) []hostilePack {
	var names []Hash
	for h := range r.objects {
		names = append(names, h)
	}
	slices.SortFunc(names, func(a, b Hash) int { return bytes.Compare(a[:], b[:]) })
	// first is the first object whose entry in pack v is of type typ.
	first := func(v, typ int) (Hash, packEntry) {
		s := must(memStore(t.TempDir(), r.packs[v].idx, r.packs[v].pack))
		for _, h := range names {
			p, off, err := s.locate(h)
			if err != nil || p == nil {
				t.Fatalf("%s: %v", h, err)
			}
			if e := must(p.entry(off)); e.typ == typ {
				return h, e
			}
		}
		t.Fatalf("no entry of type %d in pack %d", typ, v)
		return Hash{}, packEntry{}
	}
	clone := func(b []byte) []byte { return append([]byte(nil), b...) }
	headerLen := func(pack []byte, off int64) int64 {
		n := int64(1)
		for pack[off+n-1]&0x80 != 0 {
			n++
		}
		return n
	}
	// withOffset is pack v's index with h's 32-bit offset set to off.
	withOffset := func(v int, h Hash, off uint32) []byte {
		idx := clone(r.packs[v].idx)
		p := must(newPackIndex("x.idx", bytes.NewReader(idx), int64(len(idx))))
		i, _ := slices.BinarySearchFunc(names, h, func(a, b Hash) int { return bytes.Compare(a[:], b[:]) })
		binary.BigEndian.PutUint32(idx[idxNames+int64(p.n)*24+int64(i)*4:], off)
		return idx
	}
	var cases []hostilePack
	blob, e := first(0, objBlob)
	for _, c := range []struct {
		name string
		size uint64
		want string
	}{{"size 2^33", 1 << 33, "larger than objects read in process"}, {"size past the pack", 64 << 20, "deflated bytes hold"}, {"size 2^63", 1 << 63, "larger than objects read in process"}} {
		pack := r.packs[0].pack
		pack = slices.Concat(pack[:e.off], packHeader(objBlob, c.size), pack[e.off+headerLen(pack, e.off):])
		cases = append(cases, hostilePack{name: c.name, pack: pack, h: blob, off: e.off, want: c.want})
	}
	h, e := first(1, objRefDelta)
	pack := clone(r.packs[1].pack)
	copy(pack[e.data-20:], h[:])
	cases = append(cases, hostilePack{name: "reference delta to itself", v: 1, pack: pack, h: h, off: e.off, want: "loops"})
	h, e = first(0, objOfsDelta)
	pack = clone(r.packs[0].pack)
	for i := e.off + headerLen(pack, e.off); i < e.data-1; i++ {
		pack[i] = 0xff
	}
	pack[e.data-1] = 0x7f
	cases = append(cases, hostilePack{name: "offset delta before the pack", pack: pack, h: h, off: e.off, want: "delta base outside the pack"})
	other, oe := first(0, objCommit)
	cases = append(cases,
		hostilePack{name: "index names another object's offset", idx: withOffset(0, blob, uint32(oe.off)), h: blob, off: oe.off, want: "its contents are those of " + other.String()},
		hostilePack{name: "64-bit offset out of the table", idx: withOffset(0, blob, 0x80000005), h: blob, want: "64-bit offset 5 of 0"},
		hostilePack{name: "offset past the pack", idx: withOffset(0, blob, 0x7ffffff0), h: blob, off: 0x7ffffff0, want: "offset outside the pack"},
		hostilePack{name: "pack truncated", pack: r.packs[0].pack[:len(r.packs[0].pack)/2], h: blob, want: "truncated or replaced"})
	for i := range cases {
		c := &cases[i]
		if c.idx == nil {
			c.idx = r.packs[c.v].idx
		}
		if c.pack == nil {
			c.pack = r.packs[c.v].pack
		}
	}
	return cases
}

// hostileLoose are loose objects whose headers lie, each with the error
// it must give.
func hostileLoose() (raws [][]byte, wants []string) {
	for _, c := range []struct{ object, want string }{
		{"blob 1152921504606846976\x00short", "larger than objects read in process"},
		{"blob 60000000\x00short", "deflated bytes hold"},
		{"blob 3\x00longer", "longer than its header says"},
		{"blob 10\x00short", "5 of the 10 bytes"},
		{"blob " + strings.Repeat("1", 100), "bad header"},
		{"blob -1\x00", "bad header"},
		{"blob +5\x00hello", "bad header"},
		{"blob \x00", "bad header"},
		{"blob5\x00hello", "bad header"},
		{"nope 5\x00hello", "bad header"},
		{"blob 5", "header: unexpected EOF"},
		{"blob 05\x00hello", "bad header"},
	} {
		var b bytes.Buffer
		zw := zlib.NewWriter(&b)
		zw.Write([]byte(c.object))
		zw.Close()
		raws, wants = append(raws, b.Bytes()), append(wants, c.want)
	}
	return append(raws, []byte("not deflated")), append(wants, "zlib: invalid header")
}

// TestObjectStoreHostile: each damage of hostilePacks and hostileLoose is
// the error it should be, reading a few KB at most; an error, not a
// panic, not a 2^33-byte allocation, not a loop, not another object.
func TestObjectStoreHostile(t *testing.T) {
	r := newFuzzRepo(t)
	for _, c := range r.hostilePacks(t) {
		s, err := memStore(t.TempDir(), c.idx, c.pack)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var data []byte
		if a := allocated(func() { data, err = s.readBlob(c.h) }); a > 4<<20 {
			t.Errorf("%s: %d bytes allocated", c.name, a)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: read %d bytes, error %v; want %q", c.name, len(data), err, c.want)
		}
	}
	raws, wants := hostileLoose()
	for i, raw := range raws {
		var err error
		if a := allocated(func() { _, _, err = parseLoose(bytes.NewReader(raw), int64(len(raw))) }); a > 4<<20 {
			t.Errorf("loose %d: %d bytes allocated", i, a)
		}
		if err == nil || !strings.Contains(err.Error(), wants[i]) {
			t.Errorf("loose %d: %v; want %q", i, err, wants[i])
		}
	}
	// A delta whose result would be 2^34 bytes, from 12 bytes.
	if out, err := applyDelta([]byte("base"), []byte{4, 0xff, 0xff, 0xff, 0xff, 0x3f, 0x04, 'a', 'b', 'c', 'd'}); err == nil || !strings.Contains(err.Error(), "bytes from") {
		t.Errorf("a 2^34-byte delta: %d bytes, %v", len(out), err)
	}
}
