package search

import (
	"path"
	"strings"
)

// platformWeight scales a Go file built for a minority platform only, by
// its name's build constraint (exec_windows.go, lp_plan9.go,
// run_darwin.go, zerrors_freebsd_arm64.go), when the question names no
// platform: such a file is a variant of the implementation a question
// asks about, which the Linux and Unix files (and the files for every
// platform) hold for the servers and tools most repositories build. A
// prior: the variant still ranks, below the mainstream file. Chosen on
// the dev sets among 0.8, 0.7 and 0.6 (MRR@10 code-more .731 -> .734 /
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
	"bsd":       {"bsd"},
	"hurd":      {"hurd"},
	"zos":       {"zos", "z/os"},
}

// platformOf returns the minor platform a Go or assembly file's name
// restricts it to ("" for none): NAME_GOOS.go, NAME_GOOS_GOARCH.go, with
// _test before the extension or not.
func platformOf(p string) string {
	base := path.Base(p)
	ext := path.Ext(base)
	if ext != ".go" && ext != ".s" {
		return ""
	}
	parts := strings.Split(strings.TrimSuffix(strings.TrimSuffix(base, ext), "_test"), "_")
	for _, i := range []int{len(parts) - 1, len(parts) - 2} { // GOOS, or GOOS then GOARCH
		if i >= 1 {
			if _, ok := minorPlatforms[parts[i]]; ok {
				return parts[i]
			}
		}
	}
	return ""
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
