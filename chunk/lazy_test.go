package chunk

import (
	"regexp"
	"testing"
)

// The patterns compile on first use (lazyRE), so a bad one would panic in
// some user's index run instead of at every start: compile them all here.
func TestPatternsCompile(t *testing.T) {
	for name, re := range map[string]func() *regexp.Regexp{
		"mdInlineLink": mdInlineLink, "mdRefLink": mdRefLink, "pyImport": pyImport, "pyFrom": pyFrom,
		"jsImport": jsImport, "cInclude": cInclude, "rustMod": rustMod, "javaImport": javaImport,
		"callPattern": callPattern, "versioned": versioned, "migrationName": migrationName,
		"generatedHeader": generatedHeader,
	} {
		if re() == nil || re() != re() {
			t.Errorf("%s: not compiled once", name)
		}
	}
	if len(declPatterns()) == 0 {
		t.Fatal("no declaration patterns")
	}
	for lang, re := range declPatterns() {
		if re.NumSubexp() == 0 {
			t.Errorf("%s: the declared name needs a submatch", lang)
		}
	}
}
