// Package audit owns the audit ledger: an append-only JSONL file (mlld's
// `.mlld/sec/audit.jsonl` under a run's base directory, or the private
// copy the evaluator keeps outside it) in which every labelled file write
// is recorded, so that reading the file back later (in
// the same run or another) restores the labels the data had when it was
// written. It defines the record format, writes records so that concurrent
// writers never interleave, and keeps a per-ledger index from file path to
// the descriptor its records restore.
//
// The format is mlld's ("event":"write" records with ts, path, taint and
// writer) plus fields of ours that mlld's reader ignores: "labels"; for
// appends, "mode":"append"; and "rel" and "sha256", which name the file by
// its base-relative resolved path and by its content. Records written by
// mlld, which have none of them, are read as mlld reads them.
//
// audit imports the taint package and the standard library only; it must
// not import interp or anything above it, so the evaluator depends on it
// and never the other way round.
package audit
