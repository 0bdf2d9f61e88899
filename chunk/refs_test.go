package chunk

import (
	"reflect"
	"testing"
)

func TestImports(t *testing.T) {
	tests := []struct {
		lang, text string
		want       []Import
	}{
		{"go", "package a\n\nimport (\n\t\"fmt\"\n\tyaml \"gopkg.in/yaml.v3\"\n\t\"example.com/m/v2\"\n\t\"C\"\n)\n",
			[]Import{{"fmt", "fmt", 4}, {"gopkg.in/yaml.v3", "yaml", 5}, {"example.com/m/v2", "m", 6}}},
		{"go", "package a\nimport \"github.com/go-redis/redis\"\nfunc broken( {", []Import{{"github.com/go-redis/redis", "redis", 2}}},
		{"markdown", "见 [回滚](../runbook/rollback.md#步骤)、[官网](https://x.io/a.md)、[本页](#上文)\n```\n[not](a.md)\n```\n[ref]: /docs/a%20b.md \"t\"\n<mailto:a@b>\n",
			[]Import{{"../runbook/rollback.md", "", 1}, {"/docs/a b.md", "", 5}}},
		{"python", "import os, pkg.sub as s\nfrom . import x\nfrom ..util.io import read\n",
			[]Import{{"os", "", 1}, {"pkg.sub", "s", 1}, {".", "", 2}, {"..util.io", "", 3}}},
		{"typescript", "import { a } from './a';\nconst b = require(\"../b\")\nimport('./lazy')\nexport * from \"./c\"\n",
			[]Import{{"./a", "", 1}, {"../b", "", 2}, {"./lazy", "", 3}, {"./c", "", 4}}},
		{"c", "#include <stdio.h>\n# include \"util/str.h\"\n", []Import{{"util/str.h", "", 2}}},
		{"rust", "pub mod store;\nmod tests {\n", []Import{{"store", "", 1}}},
		{"java", "import static org.a.B.c;\nimport org.a.Pool;\n", []Import{{"org.a.B.c", "", 1}, {"org.a.Pool", "", 2}}},
		{"text", "import x", nil},
	}
	for _, tt := range tests {
		if got := Imports(tt.lang, tt.text); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Imports(%s, %q)\n got %+v\nwant %+v", tt.lang, tt.text, got, tt.want)
		}
	}
}

func TestCalls(t *testing.T) {
	goSrc := "func (c *Client) Do(req *http.Request) error {\n\tif len(x) > 0 { return retry.Do(c.send, RetryCount) }\n\tc.flush()\n\treturn helper(a.b.c())\n}"
	want := []Call{{"retry", "Do"}, {"c", "flush"}, {"", "helper"}, {"b", "c"}}
	if got := Calls("go", goSrc); !reflect.DeepEqual(got, want) {
		t.Errorf("Calls(go)\n got %+v\nwant %+v", got, want)
	}
	py := "def run(self):\n    # call(x) in a comment\n    if ok(1):\n        self.pool.get()\n        return utils.retry(load())\n"
	wantPy := []Call{{"", "run"}, {"", "ok"}, {"pool", "get"}, {"utils", "retry"}, {"", "load"}}
	if got := Calls("python", py); !reflect.DeepEqual(got, wantPy) {
		t.Errorf("Calls(python)\n got %+v\nwant %+v", got, wantPy)
	}
}

func TestGoPackageName(t *testing.T) {
	for in, want := range map[string]string{"net/http": "http", "gopkg.in/yaml.v3": "yaml", "github.com/a/b/v2": "b", "github.com/go-ego/gse": "gse", "x/go-openai": "openai", "a/b-c": "b_c"} {
		if got := GoPackageName(in); got != want {
			t.Errorf("GoPackageName(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestDocLinks(t *testing.T) {
	text := "# 备份与恢复概述\n\n" +
		"- 全量备份见 [快照备份](/br/br-snapshot-guide.md)，日志备份见 [PITR](br-pitr-guide.md#开启日志备份)。\n" +
		"- 又一次提到 [快照备份](/br/br-snapshot-guide.md) 只算一次；[FAQ](../faq/backup-faq.md \"常见问题\")。\n" +
		"- 架构图 ![架构](/media/br-arch.png)，官网 [TiDB](https://docs.pingcap.com/zh/tidb/stable/br.md)，[本页](#概述)。\n" +
		"- 代码 [main.go](cmd/br/main.go) 不是文档。\n\n" +
		"```markdown\n[不算](/in-a-code-fence.md)\n```\n\n" +
		"[ref]: /br/br-checkpoint-restore.md\n"
	// br-snapshot-guide, br-pitr-guide, backup-faq, br-checkpoint-restore
	if got := DocLinks(text); got != 4 {
		t.Errorf("DocLinks = %d, want 4", got)
	}
	if got := DocLinks("# 没有链接\n\n只有文字。\n"); got != 0 {
		t.Errorf("no links: %d", got)
	}
}
