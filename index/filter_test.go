package index

import "testing"

func TestFilter(t *testing.T) {
	f := newFilter(DefaultMaxFileSize, "docs/private/\n*.draft.md\n")
	tests := []struct {
		path string
		mode uint32
		size int64
		want string
	}{
		{"docs/runbook.md", 0o100644, 10, ""},
		{"vendor/x/y.go", 0o100644, 10, SkipVendored},
		{"web/node_modules/a/index.js", 0o100644, 10, SkipVendored},
		{"web/app.min.js", 0o100644, 10, SkipVendored},
		{"go.sum", 0o100644, 10, SkipVendored},
		{"deploy/.env.production", 0o100644, 10, SkipSecret},
		{"certs/server.pem", 0o100644, 10, SkipSecret},
		{"home/.ssh/id_rsa", 0o100644, 10, SkipSecret},
		{"img/logo.PNG", 0o100644, 10, SkipBinary},
		{"docs/private/secret-plan.md", 0o100644, 10, SkipIgnored},
		{"notes/idea.draft.md", 0o100644, 10, SkipIgnored},
		{"big.log", 0o100644, DefaultMaxFileSize + 1, SkipTooLarge},
		{"link", 0o120000, 10, SkipSymlink},
		{"empty.md", 0o100644, 0, SkipEmpty},
	}
	for _, tt := range tests {
		if got := f.skip(tt.path, tt.mode, tt.size); got != tt.want {
			t.Errorf("skip(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1048576": 1 << 20, "512k": 512 << 10, "2m": 2 << 20, "1G": 1 << 30} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v", in, got, err)
		}
	}
	for _, in := range []string{"x", "-1", "1.5m"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) accepted", in)
		}
	}
}
