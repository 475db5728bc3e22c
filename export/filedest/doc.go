// Package filedest is the export's files destination: CSV or JSONL files
// in a directory, a file per mirrored kind and part files per incremental
// kind, with the export's state in a file beside them (see Open).
package filedest
