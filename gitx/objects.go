package gitx

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// objectStore reads blobs straight from a repository's object directory,
// in this process: loose objects, and objects of packs with a version-2
// index, deltas (OFS and REF) resolved. It is for a search's handful of
// snippets: a `git cat-file --batch` process cost ~10 ms of CPU to start
// (exec, dynamic linking, configuration) for ten blobs it then read in
// a few ms, a tenth of a cold search's CPU on the docs corpus.
//
// It answers only what it finds itself and reports everything else as
// not found, for the caller to ask git: objects in alternates, a partial
// clone's missing ones, a layout it does not know. It declines the whole
// repository (ok false from newObjectStore) when git would not read the
// object directory as it does: alternates, replace refs, the object
// directory or alternates set in the environment, an object format or
// ref storage set in the config (sha256, reftable).
//
// Its input is files of the user's .git, which may be damaged (a pack
// truncated by a full disk, a flipped bit, a delta chain that loops, a
// header that claims 2^60 bytes): everything it reads is bounded by what
// the files can hold, and any fault is an error, after which the caller
// asks git, whose answer (or error) stands. What it returns is checked
// against the object's name, so a damaged file never reads as other text.
type objectStore struct {
	dir string // objects/

	mu     sync.Mutex
	packs  []*packIndex
	listed bool
}

// newObjectStore returns the object store of the repository whose common
// git dir is common, or false if git might read objects this one would
// not (see objectStore).
func newObjectStore(common string) (*objectStore, bool) {
	for _, v := range []string{"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_REPLACE_REF_BASE"} {
		if os.Getenv(v) != "" {
			return nil, false
		}
	}
	dir := filepath.Join(common, "objects")
	if _, err := os.Stat(filepath.Join(dir, "info", "alternates")); !errors.Is(err, os.ErrNotExist) {
		return nil, false
	}
	if ents, err := os.ReadDir(filepath.Join(common, "refs", "replace")); err == nil && len(ents) > 0 || err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, false
	}
	if b, err := os.ReadFile(filepath.Join(common, "packed-refs")); err == nil && bytes.Contains(b, []byte(" refs/replace/")) || err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, false
	}
	if b, err := os.ReadFile(filepath.Join(common, "config")); err != nil {
		return nil, false // an unreadable config: let git judge
	} else if lb := bytes.ToLower(b); bytes.Contains(lb, []byte("objectformat")) || bytes.Contains(lb, []byte("refstorage")) {
		// sha256 objects; refs in a reftable, where replace refs would
		// not be seen under refs/replace or in packed-refs
		return nil, false
	}
	return &objectStore{dir: dir}, true
}

// close closes the packs' files.
func (s *objectStore) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.packs {
		p.close()
	}
	s.packs, s.listed = nil, true
}

// errNotHere: the object is not in this store (git may still have it).
var errNotHere = errors.New("object not in the local object store")

// Bounds on what a header may claim. maxObject is the largest object
// read in process: a larger one is left to git (kb.maxFileSize, 1 MiB by
// default, bounds the blobs a search shows; git stores files above
// core.bigFileThreshold, 512 MiB, whole). maxInflate is deflate's
// largest ratio: n deflated bytes never inflate to more than 1032n.
const (
	maxObject  = 512 << 20
	maxInflate = 1032
)

// readBlob returns blob h's contents, errNotHere when the store does not
// hold it, or notBlobError when h is another kind of object.
func (s *objectStore) readBlob(h Hash) (data []byte, err error) {
	defer func() {
		// The store is a shortcut past git, which stays the authority:
		// a fault on input no test met costs the caller a git process
		// (BlobReader asks git after any error), not the program.
		if r := recover(); r != nil {
			data, err = nil, fmt.Errorf("object %s: in-process reader failed: %v", h, r)
		}
	}()
	typ, data, err := s.read(h)
	if err != nil {
		return nil, err
	}
	if got := objectName(typ, data); got != h {
		return nil, fmt.Errorf("object %s: its contents are those of %s: the object directory is damaged", h, got)
	}
	if typ != objBlob {
		return nil, notBlobError(typeName(typ))
	}
	return data, nil
}

// objectName is the name git gives an object of type typ: the SHA-1 of
// "type size\0" and the contents (~1 ms a MiB: nothing beside a search).
func objectName(typ int, data []byte) Hash {
	d := sha1.New()
	d.Write([]byte(typeName(typ) + " " + strconv.Itoa(len(data)) + "\x00"))
	d.Write(data)
	var h Hash
	d.Sum(h[:0])
	return h
}

// Object types as packs number them.
const (
	objCommit   = 1
	objTree     = 2
	objBlob     = 3
	objTag      = 4
	objOfsDelta = 6
	objRefDelta = 7
)

func typeName(t int) string {
	switch t {
	case objCommit:
		return "commit"
	case objTree:
		return "tree"
	case objBlob:
		return "blob"
	case objTag:
		return "tag"
	}
	return "object of type " + strconv.Itoa(t)
}

// maxDelta bounds a delta chain (git's default depth is 50; 4095 is the
// most a pack may have).
const maxDelta = 4096

// read returns object h's type and contents, unchecked.
func (s *objectStore) read(h Hash) (int, []byte, error) {
	p, off, err := s.locate(h)
	if err != nil {
		return 0, nil, err
	}
	if p == nil {
		return s.readLoose(h)
	}
	return s.readPacked(p, off)
}

// locate returns the pack holding h and its offset there (nil: no pack).
func (s *objectStore) locate(h Hash) (*packIndex, int64, error) {
	for _, p := range s.packList() {
		off, ok, err := p.find(h)
		if err != nil {
			return nil, 0, err
		}
		if ok {
			return p, off, nil
		}
	}
	return nil, 0, nil
}

// readLoose reads objects/xx/yyyy...: "type size\0" and the contents, deflated.
func (s *objectStore) readLoose(h Hash) (int, []byte, error) {
	f, fi, err := openRegular(loosePath(s.dir, h))
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil, errNotHere
	}
	if err != nil {
		return 0, nil, fmt.Errorf("loose object %s: %w", h, err)
	}
	defer f.Close()
	typ, data, err := parseLoose(bufio.NewReader(f), fi.Size())
	if err != nil {
		return 0, nil, fmt.Errorf("loose object %s: %w", h, err)
	}
	return typ, data, nil
}

// loosePath is where objects dir holds h loose.
func loosePath(dir string, h Hash) string {
	hex := h.String()
	return filepath.Join(dir, hex[:2], hex[2:])
}

// NotRegularError is a file of the object directory that is not a
// regular file (a FIFO, a device, a directory, a socket) where an object
// or a pack should be: it is not read, and git is not asked to read it
// either, as git's open(2) of a FIFO blocks until a writer comes.
type NotRegularError struct {
	Path string
	Mode os.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is a %s, not a regular file: not read (git would wait on it forever); remove it and fetch the object again", e.Path, fileKind(e.Mode))
}

func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&os.ModeSocket != 0:
		return "socket"
	case m&os.ModeDevice != 0:
		return "device"
	case m.IsDir():
		return "directory"
	case m&os.ModeSymlink != 0:
		return "symbolic link"
	}
	return "special file (" + m.Type().String() + ")"
}

// looseNotRegular returns a *NotRegularError when h's loose object file
// under the common git dir is there but not a regular file. Whoever reads
// h next (git, go-git) opens that file, and the open of a FIFO blocks
// until a writer comes, forever: h is not handed to them then. (The
// object store refuses such a file itself: openRegular.)
func looseNotRegular(common string, h Hash) error {
	p := loosePath(filepath.Join(common, "objects"), h)
	if fi, err := os.Stat(p); err == nil && !fi.Mode().IsRegular() {
		return &NotRegularError{p, fi.Mode()}
	}
	return nil
}

// openRegular opens a file of the object directory, without blocking
// (openObjectFile), if it is a regular file (a *NotRegularError if not).
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := openObjectFile(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &NotRegularError{path, fi.Mode()}
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// parseLoose reads a loose object of n bytes from r: its type, and its
// contents, no more than the header says nor than n bytes inflate to.
func parseLoose(r io.Reader, n int64) (int, []byte, error) {
	zr, err := zlib.NewReader(r)
	if err != nil {
		return 0, nil, err
	}
	br := bufio.NewReader(zr)
	// "commit 18446744073709551615\0" is 28 bytes: a stream that runs on
	// without a NUL is not read into memory looking for one.
	var header []byte
	for {
		c, err := br.ReadByte()
		if err != nil {
			return 0, nil, fmt.Errorf("header: %w", noEOF(err))
		}
		if c == 0 {
			break
		}
		if header = append(header, c); len(header) > 28 {
			return 0, nil, fmt.Errorf("bad header %q...", header)
		}
	}
	kind, digits, _ := strings.Cut(string(header), " ")
	typ := map[string]int{"commit": objCommit, "tree": objTree, "blob": objBlob, "tag": objTag}[kind]
	size, err := strconv.ParseUint(digits, 10, 64)
	if typ == 0 || err != nil || digits[0] < '0' || digits[0] > '9' || digits[0] == '0' && len(digits) > 1 {
		return 0, nil, fmt.Errorf("bad header %q", header)
	}
	if err := claim(size, n); err != nil {
		return 0, nil, err
	}
	data, err := readSized(br, size)
	if err != nil {
		return 0, nil, err
	}
	return typ, data, nil
}

// claim checks a header's size against the n deflated bytes it is read
// from and against maxObject.
func claim(size uint64, n int64) error {
	if size > maxObject {
		return fmt.Errorf("%d bytes: larger than objects read in process (%d MiB); git reads it", size, maxObject>>20)
	}
	if n < 0 || size > uint64(n)*maxInflate+64 {
		return fmt.Errorf("header claims %d bytes, more than %d deflated bytes hold", size, n)
	}
	return nil
}

// readSized reads exactly size bytes from r and checks that r ends there
// (which checks zlib's checksum). Memory grows as the bytes arrive, not
// as far as the header claims up front.
func readSized(r io.Reader, size uint64) ([]byte, error) {
	buf := make([]byte, min(size, 1<<20))
	n := 0
	for {
		m, err := io.ReadFull(r, buf[n:])
		if n += m; err != nil {
			return nil, fmt.Errorf("%d of the %d bytes its header says: %w", n, size, noEOF(err))
		}
		if uint64(n) == size {
			break
		}
		k := int(min(size-uint64(n), uint64(len(buf))))
		buf = slices.Grow(buf, k)[:n+k]
	}
	if err := atEnd(r); err != nil {
		return nil, err
	}
	return buf, nil
}

// noEOF: a stream that ends early is damaged, whichever EOF says so.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// atEnd checks that a deflated stream ends where its object does, which
// also checks its checksum (zlib verifies it at the end of the stream):
// a damaged object is an error, for git to judge, not wrong text.
func atEnd(r io.Reader) error {
	var b [1]byte
	for range 64 {
		n, err := r.Read(b[:])
		if n > 0 {
			return errors.New("object longer than its header says")
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return io.ErrNoProgress
}

// packList opens the index of every pack, once. A pack whose index
// cannot be read is left out: its objects are then not found here, and
// the caller asks git, which says what is wrong with it.
func (s *objectStore) packList() []*packIndex {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listed {
		return s.packs
	}
	s.listed = true
	names, _ := filepath.Glob(filepath.Join(s.dir, "pack", "pack-*.idx"))
	for _, n := range names {
		if p, err := openPackIndex(n); err == nil {
			s.packs = append(s.packs, p)
		}
	}
	return s.packs
}

// packIndex is a version-2 pack index, read in place: the fan-out table
// in memory, names and offsets read from the file as a lookup needs them.
// Its pack is opened on the first read of an object.
type packIndex struct {
	idx, pack string
	fanout    [256]uint32
	n         uint32
	large     int64 // entries of the table of 64-bit offsets
	r         io.ReaderAt
	sum       [20]byte // the pack's checksum, as the index records it

	mu       sync.Mutex
	closers  []io.Closer
	data     io.ReaderAt // the .pack, once opened and checked
	dataSize int64
	dataErr  error // it could not be: every read of it fails so
}

// Layout of a version-2 index: header, fan-out, then per object a name,
// a CRC and a 32-bit offset, then the 64-bit offsets, then the pack's
// and the index's checksums.
const (
	idxNames   = 8 + 256*4
	idxTrailer = 2 * 20
)

func openPackIndex(path string) (*packIndex, error) {
	f, fi, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	p, err := newPackIndex(path, f, fi.Size())
	if err != nil {
		f.Close()
		return nil, err
	}
	p.closers = append(p.closers, f)
	return p, nil
}

// newPackIndex reads the index at path from r, of size bytes, checking
// that its tables are whole and its fan-out in order.
func newPackIndex(path string, r io.ReaderAt, size int64) (*packIndex, error) {
	bad := func(why string, a ...any) error {
		return fmt.Errorf("pack index %s: %s", path, fmt.Sprintf(why, a...))
	}
	var head [idxNames]byte
	if size < idxNames+idxTrailer {
		return nil, bad("truncated (%d bytes)", size)
	}
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return nil, bad("%v", err)
	}
	if !bytes.Equal(head[:4], []byte{0xff, 't', 'O', 'c'}) || binary.BigEndian.Uint32(head[4:8]) != 2 {
		return nil, bad("not a version-2 index")
	}
	p := &packIndex{idx: path, pack: strings.TrimSuffix(path, ".idx") + ".pack", r: r}
	for i := range p.fanout {
		p.fanout[i] = binary.BigEndian.Uint32(head[8+4*i:])
		if i > 0 && p.fanout[i] < p.fanout[i-1] {
			return nil, bad("fan-out table out of order")
		}
	}
	p.n = p.fanout[255]
	rest := size - idxNames - idxTrailer - int64(p.n)*28
	if rest < 0 || rest%8 != 0 || rest/8 > int64(p.n) {
		return nil, bad("%d bytes for %d objects", size, p.n)
	}
	p.large = rest / 8
	if _, err := r.ReadAt(p.sum[:], size-idxTrailer); err != nil {
		return nil, bad("%v", err)
	}
	return p, nil
}

func (p *packIndex) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.closers {
		c.Close()
	}
	p.closers, p.data = nil, nil
	if p.dataErr == nil {
		p.dataErr = errors.New("object store closed")
	}
}

// find returns h's offset in the pack, if the pack has it.
func (p *packIndex) find(h Hash) (int64, bool, error) {
	lo := uint32(0)
	if h[0] > 0 {
		lo = p.fanout[h[0]-1]
	}
	hi := p.fanout[h[0]]
	var name [20]byte
	for lo < hi {
		mid := lo + (hi-lo)/2
		if _, err := p.r.ReadAt(name[:], idxNames+int64(mid)*20); err != nil {
			return 0, false, fmt.Errorf("pack index %s: %w", p.idx, err)
		}
		switch c := bytes.Compare(name[:], h[:]); {
		case c == 0:
			off, err := p.offset(mid)
			return off, err == nil, err
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false, nil
}

// offset is the pack offset of the i-th name.
func (p *packIndex) offset(i uint32) (int64, error) {
	n := int64(p.n)
	var b [8]byte
	if _, err := p.r.ReadAt(b[:4], idxNames+n*24+int64(i)*4); err != nil { // after the names and their CRCs
		return 0, fmt.Errorf("pack index %s: %w", p.idx, err)
	}
	off := binary.BigEndian.Uint32(b[:4])
	if off&0x80000000 == 0 {
		return int64(off), nil
	}
	j := int64(off & 0x7fffffff)
	if j >= p.large {
		return 0, fmt.Errorf("pack index %s: 64-bit offset %d of %d", p.idx, j, p.large)
	}
	if _, err := p.r.ReadAt(b[:], idxNames+n*28+j*8); err != nil {
		return 0, fmt.Errorf("pack index %s: %w", p.idx, err)
	}
	if v := binary.BigEndian.Uint64(b[:]); v <= math.MaxInt64 {
		return int64(v), nil
	}
	return 0, fmt.Errorf("pack index %s: 64-bit offset %d out of range", p.idx, j)
}

// packFile returns the pack and its size, opened on first use.
func (p *packIndex) packFile() (io.ReaderAt, int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.data == nil && p.dataErr == nil {
		f, fi, err := openRegular(p.pack)
		if err == nil {
			if err = p.setPack(f, fi.Size()); err != nil {
				f.Close()
			} else {
				p.closers = append(p.closers, f)
			}
		}
		p.dataErr = err
	}
	return p.data, p.dataSize, p.dataErr
}

// setPack checks that r, of size bytes, is the pack the index is of: a
// pack of as many objects, ending with the checksum the index records
// (a pack truncated or swapped for another one is not read).
func (p *packIndex) setPack(r io.ReaderAt, size int64) error {
	var head [12]byte
	var sum [20]byte
	if size < 12+20 {
		return fmt.Errorf("pack %s: truncated (%d bytes)", p.pack, size)
	}
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return fmt.Errorf("pack %s: %w", p.pack, err)
	}
	if _, err := r.ReadAt(sum[:], size-20); err != nil {
		return fmt.Errorf("pack %s: %w", p.pack, err)
	}
	if v := binary.BigEndian.Uint32(head[4:8]); string(head[:4]) != "PACK" || v != 2 && v != 3 {
		return fmt.Errorf("pack %s: not a version-2 pack", p.pack)
	}
	if n := binary.BigEndian.Uint32(head[8:]); n != p.n {
		return fmt.Errorf("pack %s: %d objects, its index has %d", p.pack, n, p.n)
	}
	if sum != p.sum {
		return fmt.Errorf("pack %s: its checksum is not its index's: truncated or replaced", p.pack)
	}
	p.data, p.dataSize = r, size
	return nil
}

// packEntry is an object's header in a pack.
type packEntry struct {
	p       *packIndex
	off     int64  // of the header
	data    int64  // of the deflated bytes
	typ     int    // objCommit..objRefDelta
	size    uint64 // inflated (a delta's: the delta's)
	baseOff int64  // objOfsDelta: the base's offset
	base    Hash   // objRefDelta: the base's name
	head    []byte // the first deflated bytes, read with the header
}

// entry reads the header of the object at off.
func (p *packIndex) entry(off int64) (packEntry, error) {
	r, size, err := p.packFile()
	if err != nil {
		return packEntry{}, err
	}
	e := packEntry{p: p, off: off}
	bad := func(why string) (packEntry, error) {
		return packEntry{}, fmt.Errorf("pack %s at %d: %s", p.pack, off, why)
	}
	end := size - 20 // the checksum
	if off < 12 || off >= end {
		return bad("offset outside the pack")
	}
	// Type and size (≤ 10 bytes), then an offset (≤ 10) or a name (20),
	// then the deflated bytes: a delta's are often all in the first
	// 512 bytes, read here in the same call.
	b := make([]byte, min(512, end-off))
	if n, err := r.ReadAt(b, off); n < len(b) {
		return bad(fmt.Sprint(err))
	}
	c := b[0]
	i := 1
	e.typ = int(c>>4) & 7
	e.size = uint64(c & 15)
	for shift := 4; c&0x80 != 0; shift += 7 {
		if i == len(b) || shift > 60 {
			return bad("bad object header")
		}
		c = b[i]
		i++
		e.size |= uint64(c&0x7f) << shift
	}
	switch e.typ {
	case objCommit, objTree, objBlob, objTag:
	case objOfsDelta:
		if i == len(b) {
			return bad("bad delta offset")
		}
		c := b[i]
		i++
		back := int64(c & 0x7f)
		for c&0x80 != 0 {
			if i == len(b) || back > 1<<48 {
				return bad("bad delta offset")
			}
			c = b[i]
			i++
			back = (back+1)<<7 | int64(c&0x7f)
		}
		if e.baseOff = off - back; back <= 0 || e.baseOff < 12 {
			return bad("delta base outside the pack")
		}
	case objRefDelta:
		if len(b)-i < 20 {
			return bad("truncated")
		}
		copy(e.base[:], b[i:])
		i += 20
	default:
		return bad(fmt.Sprintf("unknown object type %d", e.typ))
	}
	e.data, e.head = off+int64(i), b[i:]
	if err := claim(e.size, end-e.data); err != nil {
		return bad(err.Error())
	}
	return e, nil
}

// inflate reads e's deflated bytes.
func (e packEntry) inflate() ([]byte, error) {
	r, size, err := e.p.packFile()
	if err != nil {
		return nil, err
	}
	rest := io.NewSectionReader(r, e.data+int64(len(e.head)), size-20-e.data-int64(len(e.head)))
	zr, err := zlib.NewReader(bufio.NewReaderSize(io.MultiReader(bytes.NewReader(e.head), rest), 4096))
	if err == nil {
		var data []byte
		if data, err = readSized(zr, e.size); err == nil {
			return data, nil
		}
	}
	return nil, fmt.Errorf("pack %s at %d: %w", e.p.pack, e.off, err)
}

// readPacked reads the object at off of pack p, resolving deltas: it
// follows the chain of headers down to a whole object (a pack's, or a
// loose one a reference names), then applies the deltas up from it, so
// that memory holds one delta and its base at a time.
func (s *objectStore) readPacked(p *packIndex, off int64) (int, []byte, error) {
	var chain []packEntry
	type at struct {
		p   *packIndex
		off int64
	}
	var refs []at // where reference deltas led: a chain loops only through one
	var typ int
	var data []byte
	for {
		if len(chain) > maxDelta {
			return 0, nil, fmt.Errorf("pack %s at %d: delta chain longer than %d", p.pack, off, maxDelta)
		}
		e, err := p.entry(off)
		if err != nil {
			return 0, nil, err
		}
		if e.typ == objOfsDelta {
			chain, off = append(chain, e), e.baseOff
			continue
		}
		if e.typ == objRefDelta {
			chain = append(chain, e)
			bp, boff, err := s.locate(e.base)
			if err != nil {
				return 0, nil, err
			}
			if bp == nil {
				if typ, data, err = s.readLoose(e.base); err != nil {
					return 0, nil, err
				}
				break
			}
			for _, r := range refs {
				if r == (at{bp, boff}) {
					return 0, nil, fmt.Errorf("pack %s at %d: delta chain loops", p.pack, off)
				}
			}
			refs = append(refs, at{bp, boff})
			p, off = bp, boff
			continue
		}
		typ = e.typ
		if data, err = e.inflate(); err != nil {
			return 0, nil, err
		}
		break
	}
	for i := len(chain) - 1; i >= 0; i-- {
		e := chain[i]
		delta, err := e.inflate()
		if err != nil {
			return 0, nil, err
		}
		if data, err = applyDelta(data, delta); err != nil {
			return 0, nil, fmt.Errorf("pack %s at %d: %w", e.p.pack, e.off, err)
		}
	}
	return typ, data, nil
}

// applyDelta applies a git delta to base.
func applyDelta(base, delta []byte) ([]byte, error) {
	bad := func(why string) ([]byte, error) { return nil, errors.New("bad delta: " + why) }
	varint := func() (uint64, bool) {
		v, n := binary.Uvarint(delta)
		if n <= 0 {
			return 0, false
		}
		delta = delta[n:]
		return v, true
	}
	srcSize, ok1 := varint()
	dstSize, ok2 := varint()
	if !ok1 || !ok2 {
		return bad("header")
	}
	if srcSize != uint64(len(base)) {
		return bad(fmt.Sprintf("for a base of %d bytes, not %d", srcSize, len(base)))
	}
	// An instruction of a byte or more yields at most 2^24 bytes of the
	// base, or one byte of its own.
	if dstSize > maxObject || dstSize > uint64(len(delta))*max(1, min(uint64(len(base)), 1<<24)) {
		return bad(fmt.Sprintf("result of %d bytes from %d bytes of delta", dstSize, len(delta)))
	}
	out := make([]byte, 0, min(dstSize, uint64(len(base)+len(delta))))
	for len(delta) > 0 {
		op := delta[0]
		delta = delta[1:]
		switch {
		case op&0x80 != 0:
			var off, n uint64
			for i := range 4 {
				if op&(1<<i) != 0 {
					if len(delta) == 0 {
						return bad("truncated")
					}
					off |= uint64(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			for i := range 3 {
				if op&(0x10<<i) != 0 {
					if len(delta) == 0 {
						return bad("truncated")
					}
					n |= uint64(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > uint64(len(base)) || uint64(len(out))+n > dstSize {
				return bad("copy out of bounds")
			}
			out = append(out, base[off:off+n]...)
		case op != 0:
			if int(op) > len(delta) || uint64(len(out))+uint64(op) > dstSize {
				return bad("insert out of bounds")
			}
			out = append(out, delta[:op]...)
			delta = delta[op:]
		default:
			return bad("reserved instruction 0")
		}
	}
	if uint64(len(out)) != dstSize {
		return bad(fmt.Sprintf("%d bytes, not %d", len(out), dstSize))
	}
	return out, nil
}
