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
