// Command guardrun-hook is `guardrun hook` alone, built for start-up: an
// agent runs it once per tool call, so every millisecond of process
// start counts. It links neither the JavaScript engine nor the
// tokenizer (nor their package inits); a policy that needs one is handed,
// with the event, to the full guardrun installed beside it (or on PATH),
// and denied when there is none.
//
//	guardrun-hook claude|codex|gemini|cursor|generic [--policy FILE] [--deadline D] [--max-input BYTES] [--unattended] [--confine]
//	guardrun-hook exec [flags] -- COMMAND [ARGS...]   (as guardrun exec)
//	guardrun-hook serve --client generic [flags]      (as guardrun serve --client: the event to a guardrun serve)
//
// It must import hook, serve/client and oneproc only (and the standard
// library): `go list -deps` of it must not show goja, regexp2, pprof,
// x/text, tiktoken, net/http or crypto/tls (hook's
// TestSlimHookLinksNoEngine checks).
package main

import (
	"os"

	"github.com/guardrun/guardrun/hook"
	// One P from the start, before the other packages' inits: see oneproc.
	_ "github.com/guardrun/guardrun/internal/oneproc"
	"github.com/guardrun/guardrun/serve/client"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "exec" {
		// The commands `guardrun hook --confine` rewrote run here.
		os.Exit(hook.Exec(os.Args[2:], os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		// A server (the full guardrun) decides; this process only
		// carries the event there and the answer back.
		os.Exit(client.Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr, hook.FullCommandPath))
	}
	os.Exit(hook.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
