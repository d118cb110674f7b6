package main

import (
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	root, err := moduleRoot()
	if err == nil {
		var src []byte
		if src, err = generate(filepath.Join(root, "ast")); err == nil {
			err = os.WriteFile(filepath.Join(root, "internal", "astcodec", "codec_gen.go"), src, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "astgen:", err)
		os.Exit(1)
	}
}

// moduleRoot is the nearest directory at or above the working directory
// holding go.mod (go generate runs in internal/astcodec, go run in the
// root).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = up
	}
}
