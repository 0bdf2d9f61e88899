package search

import (
	"reflect"
	"slices"
	"testing"

	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/store"
)

// TestQuestionNames: the Latin-script words of a Chinese question, as the
// analyzer spells them; not a quoted value, a quantity with its unit, a
// stop word, nor any word of a question without Chinese.
func TestQuestionNames(t *testing.T) {
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"TiCDC 的 OpenAPI 谁都能调，想加上认证", []string{"ticdc", "openapi"}},
		{"不登机器，能不能在 mysql 客户端里直接把 tidb-server 停掉", []string{"mysql", "tidb-server"}},
		{"字符串比较不区分大小写，'abc' 和 'ABC' 算相等，要选什么排序规则", nil},
		{"有几 TB 的数据要导入，最快的方式是直接生成 SST 文件吗", []string{"sst"}},
		{"導入幾 TB 的數據，100GB 以後還要 2 h", nil},
		{"同一条 GROUP BY 查询每次返回的行顺序都不一样", []string{"group"}},
		{"“Region is unavailable” 是什么错误", nil},
		{"报错 8004，事务太大是什么原因", []string{"8004"}},
		{"2379 端口不通，一次删除 10000 行要 30 秒", []string{"2379"}},
		{"How do I pause a changefeed for a while?", nil},
	} {
		own := map[string]bool{}
		for _, w := range segment.Tiny().Terms(c.q) {
			own[w] = true
		}
		if got := questionNames(c.q, own); !reflect.DeepEqual(got, c.want) {
			t.Errorf("questionNames(%q) = %q, want %q", c.q, got, c.want)
		}
	}
}

// TestMention: asked about Lightning's web page, the Dashboard's page on
// browsers (texts cut from the TiDB docs) says 浏览器, 网页 and 版本 often
// and ranks first on its words; the page that answers says Lightning and
// ranks first with the lever. A Go file that never says Lightning is not
// scaled: code names things its own way.
func TestMention(t *testing.T) {
	ov := &Overlay{Files: []store.AnalyzedFile{
		overlayPage("dashboard/dashboard-access.md", []string{
			"访问 TiDB Dashboard 浏览器兼容性 TiDB Dashboard 可在常见的、更新及时的桌面浏览器中使用，具体版本号为 Chrome >= 77 Firefox >= 68 Edge >= 17。" +
				"若使用旧版本浏览器或其他浏览器访问 TiDB Dashboard，部分界面可能不能正常工作。",
			"在浏览器中打开 http://127.0.0.1:2379/dashboard 访问 TiDB Dashboard。",
		}, 1),
		overlayPage("tidb-lightning/tidb-lightning-web-interface.md", []string{
			"TiDB Lightning Web 界面 警告：从 TiDB v8.5.7 开始，TiDB Lightning 不再支持 Web 界面。" +
				"要使用 TiDB Lightning 导入数据，请使用 TiDB Lightning 命令行工具：tidb-lightning 用于导入任务，tidb-lightning-ctl 用于 checkpoint 和故障排查操作。",
		}, 2),
		overlayPage("pkg/server/browser.go", []string{
			"// openBrowser 在浏览器中打开网页 func openBrowser(url string) error { return exec.Command(\"xdg-open\", url).Run() }",
		}, 3),
	}}
	q := "Lightning 的网页在浏览器里打不开了，新版本还能用吗"
	const dash, lightning = "dashboard/dashboard-access.md", "tidb-lightning/tidb-lightning-web-interface.md"
	paths, _ := priorOrder(t, ov, q, LeverMention, false, "mention")
	if at(paths, dash) < 0 || at(paths, lightning) < at(paths, dash) {
		t.Fatalf("without the lever: %v, want the Dashboard's page above Lightning's (else this test shows nothing)", paths)
	}
	paths, factors := priorOrder(t, ov, q, LeverMention, true, "mention")
	if at(paths, lightning) < 0 || at(paths, dash) < at(paths, lightning) {
		t.Errorf("with the lever: %v, want Lightning's page above the Dashboard's", paths)
	}
	if got, want := factors[dash], 1-mentionWeight; got != want {
		t.Errorf("the Dashboard's page is scaled %v, want %v (it lacks the one name)", got, want)
	}
	if _, ok := factors["pkg/server/browser.go"]; ok {
		t.Errorf("the Go file is scaled %v: code is not", factors["pkg/server/browser.go"])
	}
	if _, ok := factors[lightning]; ok {
		t.Errorf("Lightning's page, which says the name, is scaled")
	}
	// No name given: nothing scaled.
	if _, factors := priorOrder(t, ov, "网页在浏览器里打不开了，新版本还能用吗", LeverMention, true, "mention"); len(factors) != 0 {
		t.Errorf("a question without a Latin name scaled %v", factors)
	}
}

// at is p's index in paths, -1 when absent.
func at(paths []string, p string) int {
	return slices.Index(paths, p)
}
