package export

import "testing"

// TestGroup: the batches waiting are joined, in order, into groups of up
// to the bound's records, each with the pages its last batch completes.
func TestGroup(t *testing.T) {
	t.Parallel()
	in := make(chan *Batch, 5)
	k := &Kind{Name: "attempts"}
	for i := range 5 {
		in <- &Batch{Kind: k, Records: make([]Record, 2), Pages: i + 1}
	}
	close(in)
	var records, pages []int
	for b := range group(in, 4) {
		records, pages = append(records, len(b.Records)), append(pages, b.Pages)
	}
	if len(records) != 3 || records[0] != 4 || records[1] != 4 || records[2] != 2 || pages[0] != 2 || pages[1] != 4 || pages[2] != 5 {
		t.Errorf("groups of %v records completing %v pages; want [4 4 2] and [2 4 5]", records, pages)
	}
}
