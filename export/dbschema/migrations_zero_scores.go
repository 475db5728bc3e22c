package dbschema

import "fmt"

// Migration 17: SafetyCulture's scores are proto3 integers, whose 0 and
// absence are the same on the wire, so the export stores a SafetyCulture
// score of 0 as NULL (Column.ZeroIsNone). This sets the zeros earlier
// versions stored to NULL; the rows' digests still hold the 0, so the next
// export writes those rows once more, with the same values.

// setNull stores NULL in a column of a table's rows that meet Where, a
// condition both dialects read alike.
type setNull struct {
	Table, Column, Where string
}

// SQL is one UPDATE statement.
func (s setNull) SQL(Dialect) []string {
	return []string{"UPDATE " + s.Table + " SET " + s.Column + " = NULL WHERE " + s.Where}
}

func (s setNull) apply(sh *shape) error {
	t, err := sh.find(s.Table)
	if err != nil {
		return err
	}
	if c, ok := t.Column(s.Column); !ok || !c.Nullable {
		return fmt.Errorf("%s: no nullable column %s", s.Table, s.Column)
	}
	return nil
}

var zeroScoreSteps = []step{
	setNull{"attempts", "score", "source = 'safetyculture' AND score = 0"},
	setNull{"course_progress", "score", "source = 'safetyculture' AND score = 0"},
}
