package search

import (
	"testing"

	"github.com/git-kb/git-kb/store"
)

// withSymbols sets the declared names of f's chunks, as the chunker
// records them (chunk.Chunk.Symbols).
func withSymbols(f store.AnalyzedFile, syms ...[]string) store.AnalyzedFile {
	for i, s := range syms {
		f.Meta.Chunks[i].Symbols = s
	}
	return f
}

// roleOrder searches files with the role lever on or off: the paths,
// best first, and the role factor of each result that has one.
func roleOrder(t *testing.T, files []store.AnalyzedFile, q string, on bool) ([]string, map[string]float64) {
	t.Helper()
	return priorOrder(t, &Overlay{Files: files}, q, LeverRole, on, "role")
}

// checkRole asserts that q ranks without first with the lever off, and
// with it on ranks with first, the one file scaled, by 1+roleWeight.
func checkRole(t *testing.T, files []store.AnalyzedFile, q, without, with string) {
	t.Helper()
	if paths, _ := roleOrder(t, files, q, false); len(paths) == 0 || paths[0] != without {
		t.Fatalf("%s without the lever: %v, want %s first on its words (else this test shows nothing)", q, paths, without)
	}
	paths, role := roleOrder(t, files, q, true)
	if len(paths) == 0 || paths[0] != with || len(role) != 1 || role[with] != 1+roleWeight {
		t.Errorf("%s with the lever: %v, role factors %v; want %s first, alone scaled", q, paths, role, with)
	}
}

// Go's vet: the go command's vet subcommand talks about vet throughout,
// and cmd/vet/main.go is a short func main that hands off to the
// analyzers (the texts are cut from Go's source). Asked for vet's entry
// point, the file that declares main in the vet directory ranks first;
// without the lever the subcommand's words win. A question that asks for
// no entry point, or names no directory that holds one, moves nothing.
func TestRoleEntryPoint(t *testing.T) {
	files := []store.AnalyzedFile{
		withSymbols(overlayPage("cmd/go/internal/vet/vet.go", []string{
			"// Package vet implements the “go vet” and “go fix” commands. package vet",
			"var CmdVet = &base.Command{ CustomFlags: true, UsageLine: \"go vet [build flags] [-vettool prog] [vet flags] [packages]\", " +
				"Short: \"report likely mistakes in packages\", Long: ` Vet runs the Go vet tool (cmd/vet) on the named packages and reports diagnostics.",
			"The default vet tool is 'go tool vet' or cmd/vet. For help on its checkers and their flags, run 'go tool vet help'. " +
				"For details of a specific checker such as 'printf', see 'go tool vet help printf'.",
			"} else { // vet mode: 'go vet' without -fix if !jsonFlag { toolFlags = append(toolFlags, \"-json\") " +
				"work.VetHandleStdout = printJSONDiagnostics } if diffFlag { base.Fatalf(\"go vet -diff flag requires -fix\") } }",
			"root := &work.Action{Mode: \"go \" + cmd.Name()} addVetAction := func(p *load.Package) { " +
				"act := b.VetAction(moduleLoaderState, work.ModeBuild, work.ModeBuild, applyFixes, p) root.Deps = append(root.Deps, act) } " +
				"for _, p := range pkgs { // Don't apply fixes to vendored packages, including the GOROOT vendor packages that are part of std, " +
				"or to packages from non-main modules (#76479). if applyFixes { if p.Standard && strings.HasPrefix(p.ImportPath, \"vendor/\") || " +
				"p.Module != nil && !p.Module.Main { continue } }",
		}, 1), nil, []string{"CmdVet"}, nil, []string{"run"}, nil),
		withSymbols(overlayPage("cmd/vet/main.go", []string{
			"package main import ( \"cmd/internal/objabi\" \"cmd/internal/telemetry/counter\" \"golang.org/x/tools/go/analysis/unitchecker\" ) " +
				"func main() { // Keep consistent with cmd/fix/main.go! counter.Open() objabi.AddVersionFlag() " +
				"counter.Inc(\"vet/invocations\") unitchecker.Main(suite...) // (never returns) }",
			"// The vet suite analyzers report diagnostics. var suite = []*analysis.Analyzer{ appends.Analyzer, asmdecl.Analyzer, assign.Analyzer, atomic.Analyzer }",
		}, 2), []string{"main"}, []string{"suite"}),
		withSymbols(overlayPage("cmd/fix/main.go", []string{
			"package main func main() { counter.Open() objabi.AddVersionFlag() counter.Inc(\"fix/invocations\") unitchecker.Main(suite...) }",
		}, 3), []string{"main"}),
		overlayPage("cmd/go/internal/work/exec.go", []string{
			"// vet runs the vet tool on the package's files. func (b *Builder) vet(ctx context.Context, a *Action) error { " +
				"// a.Deps[0] is the build of the package being vetted.",
		}, 4),
	}
	// cmd/fix/main.go declares main too, but the question does not name fix.
	checkRole(t, files, "vet 命令的入口", "cmd/go/internal/vet/vet.go", "cmd/vet/main.go")
	// 主函数 asks for main as well; the command is still vet's.
	if paths, role := roleOrder(t, files, "vet 的主函数", true); len(paths) == 0 || paths[0] != "cmd/vet/main.go" || len(role) != 1 {
		t.Errorf("vet 的主函数: %v, role factors %v; want cmd/vet/main.go first, alone scaled", paths, role)
	}
	// No part asked for: nothing scaled.
	if _, role := roleOrder(t, files, "vet 命令的参数", true); len(role) != 0 {
		t.Errorf("vet 命令的参数: role factors %v, want none", role)
	}
	// An English question: "main function" is one glossary word, its
	// own word main asks.
	if paths, role := roleOrder(t, files, "vet main function", true); len(paths) == 0 || paths[0] != "cmd/vet/main.go" || len(role) != 1 {
		t.Errorf("vet main function: %v, role factors %v; want cmd/vet/main.go first, alone scaled", paths, role)
	}
	// 主要 is main in CC-CEDICT (main, principal, major): the checks that
	// matter most, not vet's entry point.
	if _, role := roleOrder(t, files, "vet 的主要检查", true); len(role) != 0 {
		t.Errorf("vet 的主要检查: role factors %v, want none", role)
	}
	// The entry point of nothing the question names: nothing scaled.
	if _, role := roleOrder(t, files, "命令的入口", true); len(role) != 0 {
		t.Errorf("命令的入口: role factors %v, want none", role)
	}
}

// Go's gob: type.go's interfaces say encoding, gob and format more often
// than doc.go's prose does (the texts are cut from Go's source). Asked for
// gob's format described (说明: note, description, explain, readme — its
// fourth translation names the part, past the three searched), doc.go
// ranks first. The package's documentation of encoding, which names no
// directory of a doc.go, moves nothing.
func TestRolePackageDocumentation(t *testing.T) {
	files := []store.AnalyzedFile{
		withSymbols(overlayPage("encoding/gob/type.go", []string{
			"// GobEncoder is the interface describing data that provides its own representation for encoding values " +
				"for transmission to a GobDecoder. A type that implements GobEncoder and GobDecoder has complete control " +
				"over the representation of its data and may therefore contain things such as private fields, channels, " +
				"and functions, which are not usually transmissible in gob streams. // Note: Since gobs can be stored permanently, " +
				"it is good design to guarantee the encoding used by a GobEncoder is stable as the software evolves. For instance, " +
				"it might make sense for GobEncode to include a version number in the encoding. type GobEncoder interface { " +
				"// GobEncode returns a byte slice representing the encoding of the receiver for transmission to a GobDecoder, " +
				"usually of the same concrete type. GobEncode() ([]byte, error) }",
			"// externalEncoding bits const ( xGob = 1 + iota // GobEncoder or GobDecoder " +
				"xBinary // encoding.BinaryMarshaler or encoding.BinaryUnmarshaler xText // encoding.TextMarshaler or encoding.TextUnmarshaler )",
			"// Representation of the information we send and receive about this type. Each value we send is preceded by " +
				"its type definition: an encoded int. However, the very first time we send the value, we first send the pair (-id, wireType). " +
				"For bootstrapping purposes, we assume that the recipient knows how to decode a wireType; it is exactly the wireType struct here, " +
				"interpreted using the gob rules for sending a structure, except that we assume the ids for wireType and structType etc. are known. " +
				"The relevant pieces are built in encode.go's init() function. " +
				"type wireType struct { ArrayT *arrayType SliceT *sliceType StructT *structType MapT *mapType GobEncoderT *gobEncoderType }",
			"// GobDecoder is the interface describing data that provides its own routine for decoding transmitted values sent by a GobEncoder. " +
				"type GobDecoder interface { // GobDecode overwrites the receiver, which must be a pointer, with the value represented by the byte slice, " +
				"which was written by GobEncode, usually for the same concrete type. GobDecode([]byte) error }",
		}, 1), []string{"GobEncoder"}, []string{"xGob", "xBinary", "xText"}, []string{"wireType"}, []string{"GobDecoder"}),
		overlayPage("encoding/gob/doc.go", []string{
			"/* Package gob manages streams of gobs - binary values exchanged between an [Encoder] (transmitter) and a [Decoder] (receiver). " +
				"A typical use is transporting arguments and results of remote procedure calls (RPCs) such as those provided by [net/rpc].",
			"Integers are transmitted two ways: arbitrary precision signed integers or arbitrary precision unsigned integers. " +
				"There is no int8, int16 etc. discrimination in the gob format; there are only signed and unsigned integers. " +
				"As described below, the transmitter sends the value in a variable-length encoding; " +
				"the receiver accepts the value and stores it in the destination variable.",
			"See \"Gobs of data\" for a design discussion of the gob wire format: https://go.dev/blog/gob */ package gob",
		}, 2),
		overlayPage("encoding/json/encode.go", []string{
			"// Package json implements encoding and decoding of JSON as defined in RFC 7159. func Marshal(v any) ([]byte, error)",
		}, 3),
	}
	checkRole(t, files, "gob 编码格式说明", "encoding/gob/type.go", "encoding/gob/doc.go")
	// "package doc" is one glossary word; its own word doc asks.
	if _, role := roleOrder(t, files, "gob package doc", true); len(role) != 1 || role["encoding/gob/doc.go"] != 1+roleWeight {
		t.Errorf("gob package doc: role factors %v, want doc.go's alone", role)
	}
	if _, role := roleOrder(t, files, "编码格式说明", true); len(role) != 0 {
		t.Errorf("编码格式说明: role factors %v, want none (no gob)", role)
	}
	if _, role := roleOrder(t, files, "gob 编码格式", true); len(role) != 0 {
		t.Errorf("gob 编码格式: role factors %v, want none (no documentation asked for)", role)
	}
}
