package agent

import (
	"strings"
	"testing"
)

// The engine's field lists, now read from toolschema, are the ones it
// always read, in the same order: unknown tools (an MCP tool's `path`)
// keep the same reading.
func TestFieldListsFromToolschema(t *testing.T) {
	for name, c := range map[string]struct {
		got  []string
		want string
	}{
		"toolPathFields": {toolPathFields, "file_path,absolute_path,path,target_file,notebook_path,paths,include,glob,dir_path"},
		"patchFields":    {patchFields, "input,patch,command"},
		"cmdFields":      {cmdFields, "command,cmd,argv,args"},
		"pathFields":     {pathFields, "file_path,absolute_path,path,target_file,notebook_path"},
	} {
		if got := strings.Join(c.got, ","); got != c.want {
			t.Errorf("%s = %s, want %s", name, got, c.want)
		}
	}
}
