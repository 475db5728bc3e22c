// Package fakedata generates accounts for the service fakes, through
// their public seeding methods: a small demo account ([SeedDemo]), a
// synthetic account of any size ([SeedAccount]) and a SafetyCulture
// organisation that an EdApp account moved to ([SeedMigration]). The
// fakes themselves (edapptest, sctest) hold only the API.
package fakedata
