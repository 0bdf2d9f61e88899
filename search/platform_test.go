package search

import (
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
		"docs/install_windows.md":                "", // not Go
		"internal/syscall/windows/registry/x.go": "",
	} {
		if got := platformOf(p); got != want {
			t.Errorf("platformOf(%q) = %q, want %q", p, got, want)
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
