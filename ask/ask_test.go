package ask

import (
	"reflect"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	clean, used, invalid := Validate("连接池打满时先查慢查询 [2]，再调大参数 [1, 7]。见 [9]. 还有[3][2]", 3)
	if !reflect.DeepEqual(used, []int{2, 1, 3}) || !reflect.DeepEqual(invalid, []int{7, 9}) {
		t.Errorf("used %v invalid %v", used, invalid)
	}
	if strings.Contains(clean, "7") || strings.Contains(clean, "[9]") || !strings.Contains(clean, "[1]") {
		t.Errorf("clean: %q", clean)
	}
}

func TestExtractive(t *testing.T) {
	src := []Source{
		{N: 1, Text: "# 标题\n无关的一句话。连接池打满时，先检查慢查询。然后调大 maxOpenConns 参数。"},
		{N: 2, Text: "这里什么都没有提到。"},
		{N: 3, Text: "回滚之前先通知值班。连接池的 retry_count 默认是 3。"},
	}
	out, used := Extractive([]string{"连接池", "慢查询", "maxopenconns"}, src, 3)
	if !reflect.DeepEqual(used, []int{1, 3}) {
		t.Errorf("used %v", used)
	}
	if !strings.Contains(out, "**连接池**打满时，先检查**慢查询**。 [1]") || !strings.Contains(out, "**maxOpenConns**") || strings.Contains(out, "无关") {
		t.Errorf("answer:\n%s", out)
	}
}

func TestStreamFilter(t *testing.T) {
	var out strings.Builder
	f := &StreamFilter{N: 2, Out: func(s string) { out.WriteString(s) }}
	for _, piece := range []string{"先查慢查询 [", "1]，再看 [2, ", "9]。数组 a[i] 与 [3]", "[x] 结束 ["} {
		f.Write(piece)
	}
	f.Flush()
	if got := out.String(); got != "先查慢查询 [1]，再看 [2]。数组 a[i] 与 [x] 结束 [" {
		t.Errorf("filtered: %q", got)
	}
}
