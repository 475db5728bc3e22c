package export

// WithGroupRows is o with groups of at most n records (see groupRows),
// for the tests outside the package.
func (o Options) WithGroupRows(n int) Options {
	o.groupRows = n
	return o
}

// SelectKinds is selectKinds, for the tests outside the package.
var SelectKinds = selectKinds
