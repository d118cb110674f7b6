package diffmlld

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// DocExample is one fenced mlld block of the documentation, with the
// reason it is skipped ("" when it runs).
type DocExample struct {
	Program
	Skip string
}

// fence matches an opening fence of an mlld block (```mlld or ```mld),
// indented or not.
var fence = regexp.MustCompile("^(\\s*)(```+)\\s*(mlld|mld)\\s*$")

// DocExamples extracts every fenced mlld block from the markdown files
// under root, in path order, and marks the ones this harness cannot run.
func DocExamples(root string) ([]DocExample, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []DocExample
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(root, f)
		for i, block := range fencedBlocks(string(data)) {
			ex := DocExample{Program: Program{
				Name:   fmt.Sprintf("%s#%d", filepath.ToSlash(rel), i+1),
				Source: block,
			}}
			ex.Skip = docSkip(block)
			out = append(out, ex)
		}
	}
	return out, nil
}

// fencedBlocks returns the bodies of the mlld fences of a markdown text,
// with the fence's indentation removed.
func fencedBlocks(md string) []string {
	var blocks []string
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		m := fence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		indent, ticks := m[1], m[2]
		var body []string
		for i++; i < len(lines); i++ {
			if strings.TrimSpace(lines[i]) == ticks || strings.HasPrefix(strings.TrimSpace(lines[i]), ticks) && strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(lines[i]), "`")) == "" {
				break
			}
			body = append(body, strings.TrimPrefix(lines[i], indent))
		}
		blocks = append(blocks, strings.Join(body, "\n")+"\n")
	}
	return blocks
}

// docSkips are the reasons an example cannot run here, in the order they
// are tried: what it needs (network, files the docs do not ship, runtimes
// or services guardrun leaves out, the clock or stdin).
var docSkips = []struct {
	reason string
	re     *regexp.Regexp
}{
	{"network (URL, registry module, MCP, LLM)", regexp.MustCompile(`https?://|\bfrom\s+"?@[a-z0-9-]+/|\bimport\s+(module|cached|live|static)?\s*"?@[a-z0-9-]+/|\bmcp\b|\bclaude\b|@mlld/|\bllm\b`)},
	{"files the example does not include", regexp.MustCompile(`<[^<>@\s"]*[./*][^<>]*>|\bfrom\s+"[^"]+"|\bfrom\s+<|\bimport\s+"|<@(root|base)/`)},
	{"left out of guardrun (box, python, streaming, checkpoint, signing, auth, profiles)", regexp.MustCompile(`\bbox\b|\bpython\b|\bpy\s*\{|\bstream\b|\bcheckpoint\b|\bsign\b|\bverify\b|\bauth\b|\bkeychain\b|\bprofiles?\b|\bneeds\b|\bwants\b|\bhook\b`)},
	// Signing policy (signers, autosign/autoverify, signature-checked
	// file integrity) and the env directive's providers and env actions
	// are parts of the signing and box features above.
	{"left out of guardrun: signing and env-provider policy (signers, autosign, filesystem_integrity, env providers)", regexp.MustCompile(`\bsigners\b|\bautosign\b|\bautoverify\b|verify_all_instructions|filesystem_integrity|\bproviders:|=>\s*env\s*\{`)},
	// prose: exes hand their body to an LLM (OpenProse); node imports
	// load node modules; tool reshaping with bind serves tools over MCP.
	{"left out of guardrun: prose exes (LLM), node module imports, MCP tool reshaping (bind)", regexp.MustCompile(`\bprose:|\bfrom\s+node\b|\bbind:`)},
	{"clock, randomness or stdin", regexp.MustCompile(`@now\b|@input\b.*\bstdin\b|Math\.random|Date\.now|new Date|\bsleep\s+\d`)},
}

// sdkImport and sdkRead find the values mlld's SDK and `mlld run` pass a
// script (the @payload and @state resolvers, and the @input resolver's
// imports of environment variables and stdin fields); sdkBound finds a
// block that binds one of those names itself.
var (
	sdkImport = regexp.MustCompile(`\bfrom\s+@(input|payload|state)\b`)
	sdkRead   = regexp.MustCompile(`@(payload|state)\b`)
	sdkBound  = regexp.MustCompile(`(?:\b(?:var|let)\b[^=\n]*@(?:payload|state)\b\s*=)|(?:@\w+\([^)\n]*\b(?:payload|state)\b[^)\n]*\)\s*=)`)
)

// sdkSkip is the reason a block that needs the SDK's resolvers is
// skipped: guardrun has no SDK resolvers (its embedding API passes Go
// values and per-call variables instead), and no registry resolvers.
const sdkSkip = "SDK resolvers (@payload, @state, imports from @input)"

func docSkip(src string) string {
	for _, s := range docSkips {
		if s.re.MatchString(src) {
			return s.reason
		}
	}
	if sdkImport.MatchString(src) || sdkRead.MatchString(src) && !sdkBound.MatchString(src) {
		return sdkSkip
	}
	return ""
}
