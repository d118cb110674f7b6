//go:build !windows

package protect

// separators are the bytes that separate path elements.
const separators = "/"
