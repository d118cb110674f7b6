// Package audit owns the audit ledger: the append-only JSONL file
// `.mlld/sec/audit.jsonl` under a run's base directory in which every
// labelled file write is recorded, so that reading the file back later (in
// the same run or another) restores the labels the data had when it was
// written. It defines the record format, writes records so that concurrent
// writers never interleave, and keeps a per-ledger index from file path to
// the descriptor its records restore.
//
// The format is mlld's ("event":"write" records with ts, path, taint and
// writer) plus two fields of ours that mlld's reader ignores: "labels" and,
// for appends, "mode":"append". Records written by mlld, which have
// neither, are read as mlld reads them.
//
// audit imports the taint package and the standard library only; it must
// not import interp or anything above it, so the evaluator depends on it
// and never the other way round.
package audit
