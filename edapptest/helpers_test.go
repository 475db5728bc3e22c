package edapptest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClock is a settable clock for WithClock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2024, 3, 7, 5, 10, 36, 187e6, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// harness wraps a Server with plain net/http helpers.
type harness struct {
	t *testing.T
	*Server
}

// unstarted is a Server with the default options and no listener.
func unstarted(t testing.TB) *Server {
	t.Helper()
	s, err := newServer()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newHarness(t *testing.T, opts ...Option) harness {
	t.Helper()
	return harness{t, New(t, opts...)}
}

type resp struct {
	status int
	header http.Header
	body   []byte
}

func (r resp) json(t *testing.T, out any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(r.body, out), "body: %s", r.body)
}

func (r resp) message(t *testing.T) string {
	t.Helper()
	var e struct {
		Message *string `json:"message"`
	}
	r.json(t, &e)
	require.NotNil(t, e.Message, "error body without message: %s", r.body)
	return *e.Message
}

// raw sends a request with a raw body and the given token ("" for none).
func (h harness) raw(method, path, token string, body []byte) resp {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, h.URL+path, rd)
	require.NoError(h.t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(h.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(h.t, err)
	return resp{res.StatusCode, res.Header, b}
}

// do sends an authenticated request; body is JSON-encoded unless nil.
func (h harness) do(method, path string, body any) resp {
	h.t.Helper()
	var b []byte
	if body != nil {
		var err error
		b, err = json.Marshal(body)
		require.NoError(h.t, err)
	}
	return h.raw(method, path, h.Token, b)
}

// get sends an authenticated GET, wants 200 and decodes into out.
func (h harness) get(path string, out any) {
	h.t.Helper()
	r := h.do("GET", path, nil)
	require.Equal(h.t, http.StatusOK, r.status, "GET %s: %s", path, r.body)
	if out != nil {
		r.json(h.t, out)
	}
}

// ok sends an authenticated request, wants 200 and decodes into out.
func (h harness) ok(method, path string, body, out any) {
	h.t.Helper()
	r := h.do(method, path, body)
	require.Equal(h.t, http.StatusOK, r.status, "%s %s: %s", method, path, r.body)
	if out != nil {
		r.json(h.t, out)
	}
}

// page is the paged envelope, items kept raw.
type page[T any] struct {
	TotalCount int `json:"totalCount"`
	Items      []T `json:"items"`
}

func ids[T any](items []T, id func(T) string) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, id(it))
	}
	return out
}

// mustUser adds a user or fails.
func (h harness) mustUser(spec UserSpec) string {
	h.t.Helper()
	id, err := h.AddUser(spec)
	require.NoError(h.t, err)
	return id
}

func (h harness) mustGroup(name, parent, code string) string {
	h.t.Helper()
	id, err := h.AddGroup(GroupSpec{Name: name, ParentID: parent, InviteCode: code})
	require.NoError(h.t, err)
	return id
}

func (h harness) mustCourse(spec CourseSpec) (string, []string) {
	h.t.Helper()
	id, lessons, err := h.AddCourse(spec)
	require.NoError(h.t, err)
	return id, lessons
}

func lessonSpecs(titles ...string) []LessonSpec {
	out := []LessonSpec{}
	for _, t := range titles {
		out = append(out, LessonSpec{Title: t, ExternalID: strings.ReplaceAll(strings.ToLower(t), " ", "-"), MinimumScore: 50})
	}
	return out
}

// keys returns the keys of a JSON object in order.
func keys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim('{'), tok)
	var out []string
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		out = append(out, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return out
}

// assertNoSecret fails when s holds secret in any of its usual encodings.
func assertNoSecret(t *testing.T, s, secret, what string) {
	t.Helper()
	j, _ := json.Marshal(secret)
	for _, form := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret),
		strings.Trim(string(j), `"`), strings.ToUpper(secret)} {
		assert.False(t, strings.Contains(s, form), "%s holds a secret (as %q)", what, form)
	}
}

// dumpRequests renders the request log every way a user might print it.
func dumpRequests(t *testing.T, reqs []Request) string {
	t.Helper()
	j, err := json.Marshal(reqs)
	require.NoError(t, err)
	return fmt.Sprintf("%#v\n%v\n%s", reqs, reqs, j)
}

// demoIDs are the ids of the account seedDemo loads.
type demoIDs struct {
	CourseIDs, GroupIDs, UserIDs []string
	LessonIDs                    [][]string
}

// seedDemo loads a small account with a record of every kind, through
// the seeding methods, as fakedata.SeedDemo does (which this package's
// tests cannot import): two courses, a group hierarchy, four users,
// completions, interactions and a survey answer.
func seedDemo(s *Server) (demoIDs, error) {
	var d demoIDs
	col, err := s.AddCollection(CollectionSpec{Title: "Workplace Safety", ExternalID: "SAFETY"})
	if err != nil {
		return d, err
	}
	start := s.Now().Add(-7 * 24 * time.Hour)
	for _, c := range []CourseSpec{
		{Title: "Manual Handling", ExternalID: "MH-101", Lessons: lessonSpecs("Lifting", "Team lifts", "Quiz")},
		{Title: "Fire Safety", ExternalID: "FS-101", Lessons: lessonSpecs("Extinguishers", "Evacuation")},
	} {
		c.CollectionIDs, c.Created = []string{col}, start
		id, lessons, err := s.AddCourse(c)
		if err != nil {
			return d, err
		}
		d.CourseIDs, d.LessonIDs = append(d.CourseIDs, id), append(d.LessonIDs, lessons)
	}
	parents := []int{-1, 0, 0, 1}
	for i, g := range []GroupSpec{{Name: "Company", InviteCode: "COMPANY", CourseIDs: d.CourseIDs[1:]},
		{Name: "Warehouse", InviteCode: "WAREHOUSE", CourseIDs: d.CourseIDs[:1]},
		{Name: "Office", InviteCode: "OFFICE"}, {Name: "Night Shift", InviteCode: "NIGHTSHIFT"}} {
		if parents[i] >= 0 {
			g.ParentID = d.GroupIDs[parents[i]]
		}
		g.Created = start
		id, err := s.AddGroup(g)
		if err != nil {
			return d, err
		}
		d.GroupIDs = append(d.GroupIDs, id)
	}
	for i, name := range []string{"alice", "bob", "carol", "dave"} {
		id, err := s.AddUser(UserSpec{Username: name, Email: name + "@example.com", FirstName: name,
			ExternalID: fmt.Sprintf("EMP-00%d", i+1), Groups: []string{d.GroupIDs[[]int{2, 1, 3, 0}[i]]}, Joined: start})
		if err != nil {
			return d, err
		}
		d.UserIDs = append(d.UserIDs, id)
	}
	return d, seedDemoProgress(s, d)
}

// seedDemoProgress: bob completes Manual Handling, carol fails its first
// lesson and opens the second, alice completes the first Fire Safety
// lesson and answers its survey.
func seedDemoProgress(s *Server, d demoIDs) error {
	at := s.Now().Add(-5 * 24 * time.Hour)
	alice, bob, carol := d.UserIDs[0], d.UserIDs[1], d.UserIDs[2]
	var errs []error
	attempt := func(user, lesson string, done time.Duration, score float64) {
		spec := AttemptSpec{UserID: user, LessonID: lesson, Started: at, Score: score, Deliver: true}
		if done > 0 {
			spec.Completed = at.Add(done)
		}
		_, err := s.AddAttempt(spec)
		errs, at = append(errs, err), at.Add(time.Hour)
	}
	for i, l := range d.LessonIDs[0] {
		errs = append(errs, s.AddInteraction(Interaction{UserID: bob, LessonID: l, Slide: "Introduction", Time: at, Duration: 45 * time.Second}),
			s.AddInteraction(Interaction{UserID: bob, LessonID: l, Slide: "Check", Type: InteractionSlide, Time: at, Correct: true}))
		attempt(bob, l, 4*time.Minute, float64(85+5*i))
	}
	attempt(carol, d.LessonIDs[0][0], 6*time.Minute, 55)
	attempt(carol, d.LessonIDs[0][1], 0, 0)
	attempt(alice, d.LessonIDs[1][0], 3*time.Minute, 100)
	q, answers, err := s.AddSurveyQuestion(SurveyQuestionSpec{LessonID: d.LessonIDs[1][0], Type: "rating"})
	if err == nil {
		_, err = s.AddSurveyAnswer(SurveyAnswerSpec{UserID: alice, QuestionID: q, Answer: answers[4]})
	}
	return errors.Join(append(errs, err)...)
}

// seedLoad adds users learners (learnerNNNNNN, external id LOAD-NNNNNN)
// in one group that reaches one course of three lessons, and spreads
// attempts completed attempts over them, the lessons in turn.
func seedLoad(s *Server, users, attempts int) error {
	course, lessons, err := s.AddCourse(CourseSpec{Title: "Site Induction", Lessons: lessonSpecs("A", "B", "C")})
	if err != nil {
		return err
	}
	group, err := s.AddGroup(GroupSpec{Name: "Load", CourseIDs: []string{course}})
	if err != nil {
		return err
	}
	ids := make([]string, users)
	for i := range ids {
		n := fmt.Sprintf("%06d", i+1)
		if ids[i], err = s.AddUser(UserSpec{Username: "learner" + n, ExternalID: "LOAD-" + n, Groups: []string{group}}); err != nil {
			return err
		}
	}
	start := s.Now().Add(-90 * 24 * time.Hour)
	for i := range attempts {
		at := start.Add(time.Duration(i) * time.Minute)
		if _, err := s.AddAttempt(AttemptSpec{UserID: ids[i%users], LessonID: lessons[(i/users)%3], Started: at,
			Completed: at.Add(time.Minute), Score: float64(40 + i%61)}); err != nil {
			return err
		}
	}
	return nil
}
