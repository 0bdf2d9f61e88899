package search

import (
	"fmt"
	"testing"

	"github.com/git-kb/git-kb/store"
)

func TestPlatformOf(t *testing.T) {
	for p, want := range map[string]string{
		"os/exec/lp_windows.go":                  "windows",
		"os/exec/lp_unix.go":                     "",
		"syscall/exec_linux.go":                  "",
		"syscall/exec_bsd.go":                    "bsd",
		"syscall/zerrors_freebsd_arm64.go":       "freebsd",
		"bootstrap/run_darwin.go":                "darwin",
		"runtime/sys_plan9_amd64.s":              "plan9",
		"os/file_windows_test.go":                "windows",
		"docs/windows.go":                        "", // the name is the platform alone: no constraint
		"os/exec_windows_helper.go":              "", // a GOOS, then no GOARCH: no constraint
		"syscall/zerrors_windows_386_test.go":    "windows",
		"docs/install_windows.md":                "", // not Go
		"internal/syscall/windows/registry/x.go": "",
	} {
		if _, got, _ := platformStem(p); got != want {
			t.Errorf("platformStem(%q) platform %q, want %q", p, got, want)
		}
	}
}

// Of an implementation and its Windows variant, saying the question's
// words alike, the mainstream file ranks first, unless the question names
// Windows; --ranking -platform takes the prior away.
func TestPlatformVariantRanksBelow(t *testing.T) {
	const text = "func LookPath 在 PATH 环境变量的目录中查找可执行程序"
	files := []store.AnalyzedFile{
		overlayPage("os/exec/lp_windows.go", []string{text + " 可执行程序"}, 1),
		overlayPage("os/exec/lp_unix.go", []string{text}, 2),
	}
	order := func(q string, on bool) ([]string, map[string]float64) {
		t.Helper()
		return priorOrder(t, &Overlay{Files: files}, q, LeverPlatform, on, "platform")
	}
	const q = "在 PATH 中查找可执行程序"
	if paths, _ := order(q, false); len(paths) != 2 || paths[0] != "os/exec/lp_windows.go" {
		t.Fatalf("without the prior: %v, want the Windows file first on its words (else this test shows nothing)", paths)
	}
	paths, prior := order(q, true)
	if _, scaled := prior["os/exec/lp_windows.go"]; len(paths) != 2 || paths[0] != "os/exec/lp_unix.go" || !scaled || len(prior) != 1 {
		t.Errorf("with the prior: %v, priors %v; want lp_unix.go first and only lp_windows.go scaled", paths, prior)
	}
	if paths, prior := order("Windows 上 "+q, true); paths[0] != "os/exec/lp_windows.go" || len(prior) != 0 {
		t.Errorf("a question naming Windows: %v, priors %v; want the Windows file first, unscaled", paths, prior)
	}
}

// A platform is named by a word of the question, not by letters inside
// another word: "JSON" names no js, "HMAC" no mac, "scenarios" no ios.
// Each such question keeps the prior on the variant; a question that
// writes the platform's word (macOS, js) still lifts it.
func TestPlatformNamedByWholeWords(t *testing.T) {
	const text = "func Marshal 把 值 编码 为 JSON 文本 HMAC 签名 scenarios"
	files := []store.AnalyzedFile{
		overlayPage("encoding/enc_js.go", []string{text + " 编码"}, 1),
		overlayPage("crypto/sign_darwin.go", []string{text + " 签名"}, 3),
		overlayPage("ui/run_ios.go", []string{text + " scenarios"}, 5),
		overlayPage("encoding/enc_android.go", []string{text + " 编码"}, 7),
		// The variants' mainstream counterparts: a file is a variant
		// only beside another platform's file of its name.
		overlayPage("crypto/sign_unix.go", []string{"func Verify"}, 9),
		overlayPage("ui/run.go", []string{"func Run"}, 11),
	}
	for q, variant := range map[string]string{
		"JSON 编码":           "encoding/enc_js.go",
		"HMAC 签名":           "crypto/sign_darwin.go",
		"test scenarios 编码": "ui/run_ios.go",
	} {
		_, prior := priorOrder(t, &Overlay{Files: files}, q, LeverPlatform, true, "platform")
		if _, scaled := prior[variant]; !scaled {
			t.Errorf("%q: %s unscaled (priors %v): the question names no platform", q, variant, prior)
		}
	}
	for q, variant := range map[string]string{
		"macOS 上 HMAC 签名":   "crypto/sign_darwin.go",
		"js 下 JSON 编码":      "encoding/enc_js.go",
		"iOS: scenarios":    "ui/run_ios.go",
		"macOS14 上 HMAC 签名": "crypto/sign_darwin.go",
		"苹果电脑上 HMAC 签名":     "crypto/sign_darwin.go",
		"安卓手机 上 JSON 编码":    "encoding/enc_android.go",
	} {
		_, prior := priorOrder(t, &Overlay{Files: files}, q, LeverPlatform, true, "platform")
		if _, scaled := prior[variant]; scaled {
			t.Errorf("%q: %s scaled (priors %v), though the question names its platform", q, variant, prior)
		}
	}
}

// A _bsd file is built for the family: a question naming one of its
// members (FreeBSD, whose "bsd" is no word of its own) names it, as
// the prior's whole-word match would otherwise miss.
func TestPlatformBSDNamedByAMember(t *testing.T) {
	const text = "func forkExec 创建 子进程 并 执行 程序"
	files := []store.AnalyzedFile{
		overlayPage("syscall/exec_bsd.go", []string{text}, 1),
		overlayPage("syscall/exec_linux.go", []string{"func forkAndExecInChild1"}, 3),
	}
	for q, named := range map[string]bool{
		"创建 子进程 执行 程序":           false,
		"FreeBSD 上 创建 子进程 执行 程序": true,
		"OpenBSD 创建 子进程":         true,
		"bsd 创建 子进程":             true,
	} {
		_, prior := priorOrder(t, &Overlay{Files: files}, q, LeverPlatform, true, "platform")
		if _, scaled := prior["syscall/exec_bsd.go"]; scaled == named {
			t.Errorf("%q: exec_bsd.go scaled %v (priors %v), want %v", q, scaled, prior, !named)
		}
	}
}

// A file built for a minor platform is a variant only beside a file of
// its name for another platform (lp_windows.go beside lp_unix.go): in a
// repository whose service_windows.go has no Unix or generic
// counterpart, that file is the implementation and keeps its score,
// while lp_windows.go beside lp.go is scaled. Stems ignore GOARCH and
// _test: zerrors_linux_amd64.go is the counterpart of
// zerrors_windows_386.go.
func TestPlatformPriorNeedsACounterpart(t *testing.T) {
	const text = "func Install 把 服务 注册 到 系统 服务 管理器"
	files := []store.AnalyzedFile{
		overlayPage("svc/service_windows.go", []string{text}, 1),
		overlayPage("svc/service_windows_test.go", []string{"func TestInstall"}, 3),
		overlayPage("exec/lp_windows.go", []string{text}, 5),
		overlayPage("exec/lp.go", []string{"func LookPath"}, 7),
		overlayPage("sys/zerrors_windows_386.go", []string{text}, 9),
		overlayPage("sys/zerrors_linux_amd64.go", []string{"const EINVAL"}, 11),
		overlayPage("other/service_unix.go", []string{"func Start"}, 13), // its name in another directory: no counterpart
	}
	_, prior := priorOrder(t, &Overlay{Files: files}, "注册 系统 服务", LeverPlatform, true, "platform")
	for _, p := range []string{"exec/lp_windows.go", "sys/zerrors_windows_386.go"} {
		if _, scaled := prior[p]; !scaled {
			t.Errorf("%s unscaled (priors %v): it has a counterpart", p, prior)
		}
	}
	if _, scaled := prior["svc/service_windows.go"]; scaled {
		t.Errorf("svc/service_windows.go scaled (priors %v): only its own test shares its name in its directory", prior)
	}
	// An org search's candidates are some of the repository's files, so
	// a missing counterpart says nothing: every platform file is scaled.
	_, prior = priorOrder(t, &Overlay{Files: files, Partial: true}, "注册 系统 服务", LeverPlatform, true, "platform")
	if _, scaled := prior["svc/service_windows.go"]; !scaled {
		t.Errorf("partial overlay: svc/service_windows.go unscaled (priors %v)", prior)
	}
	for p, want := range map[string][2]string{
		"os/exec/lp_windows.go":            {"os/exec/lp", "windows"},
		"os/exec/lp_unix.go":               {"os/exec/lp", ""},
		"os/exec/lp.go":                    {"os/exec/lp", ""},
		"syscall/zerrors_linux_amd64.go":   {"syscall/zerrors", ""},
		"syscall/zerrors_freebsd_arm64.go": {"syscall/zerrors", "freebsd"},
		"runtime/sys_plan9_amd64.s":        {"runtime/sys", "plan9"},
		"os/file_windows_test.go":          {"os/file", "windows"},
		"main.go":                          {"main", ""},
	} {
		if stem, platform, ok := platformStem(p); !ok || stem != want[0] || platform != want[1] {
			t.Errorf("platformStem(%q) = %q, %q, %v; want %q, %q", p, stem, platform, ok, want[0], want[1])
		}
	}
}

// platformVariants runs on every query with a platform file among the
// candidates, over every file of that file's directory (runtime/ holds
// over 1,000 in Go's source): it allocates for the candidates, never per
// file of the view, and platformStem, its per-file step, not at all.
func TestPlatformVariantsAllocatePerCandidate(t *testing.T) {
	v := &store.View{}
	for i := range 2000 {
		v.Entries = append(v.Entries, store.ViewEntry{Path: fmt.Sprintf("runtime/f%d_linux_amd64.go", i)})
	}
	v.Entries = append(v.Entries, store.ViewEntry{Path: "runtime/os_windows.go"}, store.ViewEntry{Path: "runtime/os_linux.go"})
	files := []*fileHits{{entry: &v.Entries[len(v.Entries)-2]}}
	if a := testing.AllocsPerRun(10, func() { platformStem("runtime/sys_windows_amd64_test.go") }); a != 0 {
		t.Errorf("platformStem allocates %v times", a)
	}
	var variants map[*fileHits]string
	if a := testing.AllocsPerRun(10, func() { variants = platformVariants(v, files, false) }); a > 20 {
		t.Errorf("platformVariants over %d files allocates %v times: per file", len(v.Entries), a)
	}
	if variants[files[0]] != "windows" {
		t.Errorf("os_windows.go beside os_linux.go is no variant: %v", variants)
	}
}
