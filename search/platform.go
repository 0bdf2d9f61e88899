package search

import (
	"path"
	"strings"

	"github.com/git-kb/git-kb/store"
)

// platformWeight scales a Go file built for a minority platform only, by
// its name's build constraint (exec_windows.go, lp_plan9.go,
// run_darwin.go, zerrors_freebsd_arm64.go), when the question names no
// platform: such a file is a variant of the implementation a question
// asks about, which the Linux and Unix files (and the files for every
// platform) hold for the servers and tools most repositories build. A
// prior: the variant still ranks, below the mainstream file. Only a
// variant: a file with no other platform's file of its name beside it
// (a Windows-only repository's service_windows.go) is the implementation
// and is left alone (platformVariants; an org search, which sees its
// candidates only, treats every such file as a variant). Chosen on the
// dev sets among 0.8, 0.7 and 0.6 (MRR@10 code-more .731 -> .734 /
// .744 / .744, code-dev .892 -> .900 at each, polaris-more .592 -> .606
// at each; docs, polaris-dev and code-held unchanged): the milder of the
// best two.
var platformWeight = 0.7

// minorPlatforms are the GOOS values (and the bsd family's file suffix)
// of the platforms a Go file name may restrict it to, other than linux.
// Each lists the words by which a question names the platform, Chinese
// ones included (安卓 is how Chinese writes Android, 苹果 Apple's).
var minorPlatforms = map[string][]string{
	"windows":   {"windows", "win32", "win64", "winapi", "视窗"},
	"darwin":    {"darwin", "macos", "mac", "osx", "苹果"},
	"ios":       {"ios", "iphone", "苹果"},
	"android":   {"android", "安卓"},
	"plan9":     {"plan9", "plan 9"},
	"js":        {"js", "javascript", "wasm", "browser"},
	"wasip1":    {"wasi", "wasm"},
	"aix":       {"aix"},
	"solaris":   {"solaris"},
	"illumos":   {"illumos"},
	"dragonfly": {"dragonfly", "bsd"},
	"freebsd":   {"freebsd", "bsd"},
	"netbsd":    {"netbsd", "bsd"},
	"openbsd":   {"openbsd", "bsd"},
	"bsd":       {"bsd", "freebsd", "netbsd", "openbsd", "dragonfly"}, // the family's files: a member named is named
	"hurd":      {"hurd"},
	"zos":       {"zos", "z/os"},
}

// goArchs are the GOARCH values a file name may end with after its GOOS
// (zerrors_linux_amd64.go), and mainPlatforms the suffixes of the files
// built for the platforms the prior does not demote.
var (
	goArchs = map[string]bool{"386": true, "amd64": true, "arm": true, "arm64": true, "loong64": true,
		"mips": true, "mipsle": true, "mips64": true, "mips64le": true, "ppc64": true, "ppc64le": true,
		"riscv64": true, "s390x": true, "wasm": true, "sparc64": true}
	mainPlatforms = map[string]bool{"linux": true, "unix": true}
)

// platformStem splits a Go or assembly file's path into its stem, the
// directory and the name without its _test, GOARCH and GOOS suffixes
// (os/exec/lp for lp_windows.go, lp_unix.go and lp.go alike), and the
// minor platform it is built for ("" for any other): the files of one
// stem are one implementation's variants. As go/build reads a name, a
// GOOS followed by any other word (exec_windows_helper.go) restricts
// nothing. The stem is a prefix of p, so
// platformVariants's scan of a directory allocates nothing per file.
func platformStem(p string) (stem, platform string, ok bool) {
	ext := path.Ext(p)
	if ext != ".go" && ext != ".s" {
		return "", "", false
	}
	dir := strings.LastIndexByte(p, '/') + 1
	name := strings.TrimSuffix(p[dir:len(p)-len(ext)], "_test")
	if rest, part, ok := cutLastPart(name); ok && goArchs[part] {
		name = rest
	}
	if rest, part, ok := cutLastPart(name); ok {
		if _, minor := minorPlatforms[part]; minor {
			platform, name = part, rest
		} else if mainPlatforms[part] {
			name = rest
		}
	}
	return p[:dir+len(name)], platform, true
}

// cutLastPart cuts a file name's last _-separated part off (ok: it has
// more than one).
func cutLastPart(name string) (rest, part string, ok bool) {
	i := strings.LastIndexByte(name, '_')
	if i < 0 {
		return name, "", false
	}
	return name[:i], name[i+1:], true
}

// platformVariants returns the platform of each of files that is a
// variant: built for a minor platform, beside a file of its stem built
// for another platform ("" counts: lp_windows.go beside lp_unix.go or
// lp.go). With partial (an org search, whose view holds its candidates
// only) every minor platform's file counts: a counterpart missing there
// says nothing of the repository. One pass over the view's paths,
// comparing directories first, so Go's 10,000 files cost little.
func platformVariants(v *store.View, files []*fileHits, partial bool) map[*fileHits]string {
	out := map[*fileHits]string{}
	type stemOf struct{ stem, platform string }
	mine := map[*fileHits]stemOf{}
	others := map[string]map[string]bool{} // stem -> platforms of the view's files
	dirs := map[string]bool{}
	for _, f := range files {
		if stem, p, ok := platformStem(f.entry.Path); ok && p != "" {
			if partial {
				out[f] = p
				continue
			}
			mine[f] = stemOf{stem, p}
			others[stem] = map[string]bool{}
			dirs[stem[:strings.LastIndexByte(stem, '/')+1]] = true
		}
	}
	if len(mine) == 0 {
		return out
	}
	for i := range v.Entries {
		e := &v.Entries[i]
		if !dirs[e.Path[:strings.LastIndexByte(e.Path, '/')+1]] {
			continue
		}
		if stem, p, ok := platformStem(e.Path); ok && others[stem] != nil {
			others[stem][p] = true
		}
	}
	for f, m := range mine {
		for p := range others[m.stem] {
			if p != m.platform {
				out[f] = m.platform
				break
			}
		}
	}
	return out
}

// namesPlatform reports whether the question names the platform: one of
// its words, standing alone (between characters that are no ASCII
// letters, so 用macOS部署 and Windows10 count), not inside another word:
// JSON names no js, HMAC no mac, scenarios no ios.
func namesPlatform(question, platform string) bool {
	q := strings.ToLower(question)
	for _, w := range minorPlatforms[platform] {
		for from := 0; ; {
			i := strings.Index(q[from:], w)
			if i < 0 {
				break
			}
			i += from
			if end := i + len(w); (i == 0 || !asciiLetter(q[i-1])) && (end == len(q) || !asciiLetter(q[end])) {
				return true
			}
			from = i + 1
		}
	}
	return false
}

func asciiLetter(c byte) bool { return 'a' <= c && c <= 'z' }
