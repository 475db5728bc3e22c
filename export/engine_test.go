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

// TestGroupHandsOverWhatCame: a batch is handed over as soon as the
// writer takes it, without waiting for more; the batches that come while
// the writer holds a group make the next.
func TestGroupHandsOverWhatCame(t *testing.T) {
	t.Parallel()
	in := make(chan *Batch)
	k := &Kind{Name: "attempts"}
	out := group(in, 10)
	in <- &Batch{Kind: k, Records: make([]Record, 2), Pages: 1}
	if b := <-out; len(b.Records) != 2 || b.Pages != 1 {
		t.Fatalf("first group: %d records, %d pages; want the first batch alone", len(b.Records), b.Pages)
	}
	in <- &Batch{Kind: k, Records: make([]Record, 2), Pages: 2}
	in <- &Batch{Kind: k, Records: make([]Record, 2), Pages: 3}
	close(in)
	if b := <-out; len(b.Records) != 4 || b.Pages != 3 {
		t.Errorf("second group: %d records, %d pages; want the two batches that came meanwhile", len(b.Records), b.Pages)
	}
	if _, ok := <-out; ok {
		t.Error("a group after the last batch")
	}
}
