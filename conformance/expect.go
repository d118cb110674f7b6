package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/guardrun/guardrun"
)

// Expectation is what a case's files say one script must produce.
type Expectation struct {
	// Document is expected*.md; nil when the file does not exist (a smoke
	// test: the script only has to run without error).
	Document *string
	// Error is the raw text of error*.md ("" when absent). Non-empty makes
	// the script an error case.
	Error string
	// ErrorContains are the parts of error-contains.md (nil when absent):
	// each must occur in the error's first line (CheckErrorContains).
	// Non-nil makes the script an error case.
	ErrorContains []string
	// Stderr is expected-stderr.md; nil when absent (stderr unchecked).
	Stderr *string
	// ErrorShape is expected-error.json; nil when absent.
	ErrorShape map[string]any
	// Mode is the parse mode: from the script's extension, or strict when
	// config.json says {"mode":"strict"}.
	Mode guardrun.Mode
}

// IsErrorCase reports whether the script must fail.
func (e Expectation) IsErrorCase() bool { return e.Error != "" || e.ErrorContains != nil }

// variantSuffix returns what follows "example" in a script's base name:
// "" for example.md, "-number" for example-number.md.
func variantSuffix(script string) string {
	base := strings.TrimSuffix(script, filepath.Ext(script))
	return strings.TrimPrefix(base, "example")
}

// LoadExpectation reads the expectation files of script in caseDir. The
// expected and error files follow the script's variant (example-v.md →
// expected-v.md, error-v.md); expected-stderr.md, expected-error.json and
// config.json belong to the whole directory, as in mlld's harness.
func LoadExpectation(caseDir, script string) (Expectation, error) {
	var exp Expectation
	v := variantSuffix(script)
	var err error
	if exp.Document, err = readOptional(filepath.Join(caseDir, "expected"+v+".md")); err != nil {
		return exp, err
	}
	errText, err := readOptional(filepath.Join(caseDir, "error"+v+".md"))
	if err != nil {
		return exp, err
	}
	if errText != nil {
		exp.Error = *errText
	}
	contains, err := readOptional(filepath.Join(caseDir, ErrorContainsFile))
	if err != nil {
		return exp, err
	}
	if contains != nil {
		exp.ErrorContains = append([]string{}, ErrorContainsParts(*contains)...)
	}
	if exp.Stderr, err = readOptional(filepath.Join(caseDir, "expected-stderr.md")); err != nil {
		return exp, err
	}
	shape, err := readOptional(filepath.Join(caseDir, "expected-error.json"))
	if err != nil {
		return exp, err
	}
	if shape != nil {
		if err := json.Unmarshal([]byte(*shape), &exp.ErrorShape); err != nil {
			return exp, fmt.Errorf("expected-error.json: %w", err)
		}
		if exp.ErrorShape == nil {
			exp.ErrorShape = map[string]any{}
		}
	}
	exp.Mode, err = scriptMode(caseDir, script)
	return exp, err
}

// scriptMode applies the mode rule: .mld is always strict; .md is markdown
// unless config.json says "mode": "strict".
func scriptMode(caseDir, script string) (guardrun.Mode, error) {
	if filepath.Ext(script) == ".mld" {
		return guardrun.Strict, nil
	}
	cfg, err := readOptional(filepath.Join(caseDir, "config.json"))
	if err != nil || cfg == nil {
		return guardrun.Markdown, err
	}
	var c struct {
		Mode string `json:"mode"`
	}
	if err := json.Unmarshal([]byte(*cfg), &c); err != nil {
		return guardrun.Markdown, fmt.Errorf("config.json: %w", err)
	}
	if c.Mode == "strict" {
		return guardrun.Strict, nil
	}
	return guardrun.Markdown, nil
}

func readOptional(path string) (*string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s := string(b)
	return &s, nil
}
