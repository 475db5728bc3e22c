package main

import (
	"flag"

	"github.com/edapp-go/edapp/cmd/edapp/internal/fakeserve"
	"github.com/spf13/cobra"
)

// fakeHelp is the long help of edapp fake.
const fakeHelp = `fake serves an in-memory fake of the EdApp REST API (v1 and v2, the same fake
the SDK's own tests use) until it is interrupted (Ctrl-C).

Once its port is bound, its first two lines of output are EDAPP_BASE_URL=...
and EDAPP_API_TOKEN=..., ready for eval or a .env file. --seed loads a small
demo account (a collection, two courses, a group hierarchy, four users with
progress). --users and --attempts load a large synthetic account on top, and
--groups, --collections, --courses and --lessons (per course) give it the
shape of a real one: learners in 0-3 groups, some groups with children,
courses in 0-2 collections, attempts, progress and survey answers spread over
the courses and lessons; the same flags load the same data. The realistic
shape below loads in a few seconds. --attempts alone spreads the attempts over
the users already there. --budget N or N/WINDOW makes the fake answer 429
beyond N requests in any 5 minutes or in any WINDOW, as the service does with
1400/5m. --redeliver N sends every webhook delivery N more times.

A browser can play the learner: a launch link opens the lesson on a page
whose form completes it (as the SDK's CompleteLesson does: progress,
attempt, webhook deliveries) or leaves it, and /learner/{userId} lists a
learner's courses with fresh launch links. With --seed the demo learners'
home pages are printed to stderr.

--safetyculture also serves SafetyCulture's Training API and org feeds on the
same port (/training/..., /feed/..., /webhooks/v1/..., and the WhoAmI that
SafetyCulture's exporter asks first), with the same token: the account is the
migrated copy of the EdApp one, with planted differences (--no-anomalies
leaves them out) and some activity after the move.`

// newCmdFake makes `edapp fake`; runF, when not nil, runs instead of the
// fake with the flags as parsed.
func newCmdFake(fac *factory, runF func(*fakeserve.Flags) error) *cobra.Command {
	var f fakeserve.Flags
	var sc safetyCultureFlags
	cmd := &cobra.Command{
		Use:   "fake",
		Short: "Serve a fake EdApp service for tools in any language",
		Long:  fakeHelp,
		Example: `  edapp fake --seed
  edapp fake --token dev > fake.env &   # then: set -a; . ./fake.env; set +a
  edapp fake --users 5000 --groups 300 --collections 20 --courses 200 --lessons 8 \
             --attempts 200000 --latency 50ms --budget 1400/5m
  edapp fake --seed --budget 30/10s --redeliver 1
  edapp fake --seed --users 500 --groups 30 --courses 20 --attempts 20000 --safetyculture`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.Check(); err != nil {
				return usagef("%v", err)
			}
			if err := sc.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(&f)
			}
			return f.Serve(cmd.Context(), fac.IO.Out, fac.IO.ErrOut, sc.also(&f)...)
		},
	}
	fs := flag.NewFlagSet("fake", flag.ContinueOnError)
	f.Register(fs)
	cmd.Flags().AddGoFlagSet(fs)
	sc.register(cmd)
	return cmd
}
