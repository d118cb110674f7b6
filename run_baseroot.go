package guardrun

// WithBaseAsRoot makes the metadata of loaded files (`.mx.absolute`,
// `.mx.path`, `.mx.absoluteDir`), their `dir:` labels and their sources
// show paths rooted at the base directory, "/" standing for it, instead of
// host paths; guards then name directories as `dir:/sub/dir`. mlld's fixture harness runs
// every script on a file system whose root is the project, so the
// conformance runner sets it; it also keeps host paths out of scripts.
func WithBaseAsRoot() RunOption {
	return func(c *runConfig) { c.opts.BaseAsRoot = true }
}
