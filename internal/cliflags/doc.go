// Package cliflags holds the command-line rule guardrun's commands share:
// flags may come before or after positional arguments. It imports only
// the standard library.
package cliflags
