package pager

import "strings"

// DroppedWhole counts the items dropped whole ("items[3]", or "[3]" from
// a bare array) among a page's dropped paths.
func DroppedWhole(paths []string) int {
	n := 0
	for _, p := range paths {
		p = strings.TrimPrefix(p, "items")
		if strings.HasPrefix(p, "[") && strings.IndexByte(p, ']') == len(p)-1 {
			n++
		}
	}
	return n
}

// DroppedRecord is a record of an answer dropped whole: its JSON path
// ("data[3]"), its first MaxDroppedRecordBytes bytes as sent, and its
// size.
type DroppedRecord struct {
	Path string
	Raw  []byte // at most MaxDroppedRecordBytes; Raw is all of it when len(Raw) == Size
	Size int
}

// MaxDroppedRecordBytes bounds the bytes a DroppedRecord keeps.
const MaxDroppedRecordBytes = 64 << 10

// NewDroppedRecord is the record raw, dropped whole at path, its bytes
// copied within MaxDroppedRecordBytes.
func NewDroppedRecord(path string, raw []byte) DroppedRecord {
	return DroppedRecord{Path: path, Raw: append([]byte(nil), raw[:min(len(raw), MaxDroppedRecordBytes)]...), Size: len(raw)}
}
