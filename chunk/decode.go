package chunk

import (
	"bytes"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/encoding/simplifiedchinese"
)

// Decode turns file bytes into UTF-8 text. It reports binary content (a NUL
// byte in the first 8 KB, as git's own heuristic), strips a UTF-8 BOM,
// decodes GBK/GB18030 when the bytes are not UTF-8 but decode cleanly as
// GB18030, and otherwise replaces invalid bytes with U+FFFD. It never fails.
func Decode(data []byte) (text, encoding string, binary bool) {
	head := data[:min(len(data), 8000)]
	if bytes.IndexByte(head, 0) >= 0 {
		return "", "", true
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if utf8.Valid(data) {
		return string(data), "", false
	}
	if out, err := simplifiedchinese.GB18030.NewDecoder().Bytes(data); err == nil && looksLikeGB(out) {
		return string(out), "gb18030", false
	}
	return string(bytes.ToValidUTF8(data, []byte("\uFFFD"))), "", false
}

// DecodeOwned is Decode for bytes the caller hands over: UTF-8 text comes
// back sharing data's memory instead of a copy, so data must not change
// afterwards. A search reads ten result files for their snippets, some of
// hundreds of KB, and copying each was a page fault every 4 KB (issue 16).
func DecodeOwned(data []byte) (text, encoding string, binary bool) {
	head := data[:min(len(data), 8000)]
	if bytes.IndexByte(head, 0) >= 0 {
		return "", "", true
	}
	if d := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")); len(d) > 0 && utf8.Valid(d) {
		return unsafe.String(&d[0], len(d)), "", false
	}
	return Decode(data)
}

// looksLikeGB guards against decoding arbitrary Latin-1 junk as Chinese:
// most of the non-ASCII characters of genuine GBK text are Han.
func looksLikeGB(out []byte) bool {
	if bytes.ContainsRune(out, utf8.RuneError) {
		return false
	}
	nonASCII, han := 0, 0
	for _, r := range string(out) {
		if r < 0x80 {
			continue
		}
		nonASCII++
		if r >= 0x4E00 && r <= 0x9FFF || r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFFEF {
			han++
		}
	}
	return nonASCII > 0 && han*10 >= nonASCII*7
}
