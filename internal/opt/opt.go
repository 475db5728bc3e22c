// Package opt applies functional options, the one way every package of the
// module takes them: an option is a func(*T) error, options apply in
// order, a nil one is skipped, and the first error stops them. The nested
// modules, which may not import this package, keep the same few lines.
package opt

// Apply applies opts to cfg in order and returns the first error.
func Apply[T any, O ~func(*T) error](cfg *T, opts []O) error {
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(cfg); err != nil {
			return err
		}
	}
	return nil
}
