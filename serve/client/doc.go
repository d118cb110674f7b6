// Package client is the hook-command side of guardrun serve (`guardrun
// serve --client generic`, `guardrun-hook serve --client generic`): it
// reads one generic event on stdin, has the server decide it and prints
// the answer as `guardrun-hook generic` would, starting a server first
// when asked and none answers.
//
// It owns the server's default socket path (serve uses it) and the client
// mode's command line. It is linked into the slim guardrun-hook, which a
// host starts once per event: it must import hook and the standard
// library only, and not package net (it connects with syscall), so that
// it adds nothing to that binary's start.
package client
