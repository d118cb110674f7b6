package cliflags

import "flag"

// ParseInterspersed parses flags given before or after positional
// arguments, as in `guardrun FILE --json`, and returns the positional
// ones. ok is false when a flag is wrong (or -h asked for help): the flag
// package has already printed the problem or the help text to the
// FlagSet's output, and there is nothing to run.
func ParseInterspersed(fs *flag.FlagSet, args []string) (pos []string, ok bool) {
	for {
		if err := fs.Parse(args); err != nil {
			return nil, false
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, true
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
