package sctest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/edapp-go/edapp/internal/fakeserver"
)

// store is the organisation. Reads hold Server.mu for reading, writes for
// writing.
type store struct {
	created      time.Time
	seq          int // numbers the ids the fake makes
	orgID        string
	ownerID      string // the token's user, as WhoAmI answers
	users        fakeserver.Table[user]
	userByEmail  map[string]*user
	groups       fakeserver.Table[group]
	groupUsers   []memberKey        // (group, user), in the order added
	members      map[memberKey]bool // groupUsers and siteMembers, for their uniqueness
	sites        fakeserver.Table[site]
	siteMembers  []memberKey // (site, user)
	courses      fakeserver.Table[course]
	lessons      fakeserver.Table[lesson]
	collections  fakeserver.Table[collection]
	paths        fakeserver.Table[path]
	refreshes    fakeserver.Table[rapidRefresh]
	boards       fakeserver.Table[leaderboard]
	progress     map[ucKey]*courseProgress
	progressKeys []ucKey // the feed's order
	assignments  map[string]map[Assignment]bool
	analytics    analyticsStore
	webhooks     fakeserver.Table[webhook]
	secret       string // the webhook signature secret
}

func newStore(now time.Time) *store {
	st := &store{created: now, userByEmail: map[string]*user{}, progress: map[ucKey]*courseProgress{}, members: map[memberKey]bool{},
		assignments: map[string]map[Assignment]bool{}, secret: fakeserver.RandomHex(32)}
	st.analytics.lessonProgress = map[ulKey]*lessonProgress{}
	st.orgID = "role_" + st.hexID("org", 32)
	return st
}

type memberKey struct{ parentID, userID string }

type ucKey struct{ userID, courseID string }

type ulKey struct{ userID, lessonID string }

// hexID makes the next id of n hex digits. The fake's ids follow from the
// order of the seeding calls, so the same calls make the same ids.
func (st *store) hexID(kind string, n int) string {
	st.seq++
	return derivedHex(n, "sctest", kind, fmt.Sprint(st.seq))
}

// derivedHex returns n hex digits derived from parts, the same for the
// same parts.
func derivedHex(n int, parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:n]
}

// uuidOf formats 32 hex digits as a UUID.
func uuidOf(h string) string {
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func (s *Server) write(fn func(st *store, now time.Time) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fn(s.st, s.now())
}

func (s *Server) read(fn func(st *store, now time.Time)) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	fn(s.st, s.now())
}

// OrganisationID returns the organisation's id, as WhoAmI answers it.
func (s *Server) OrganisationID() string {
	var id string
	s.read(func(st *store, _ time.Time) { id = st.orgID })
	return id
}

// WebhookSecret returns the secret the fake signs deliveries with, as GET
// /webhooks/v1/token answers it.
func (s *Server) WebhookSecret() string {
	var secret string
	s.read(func(st *store, _ time.Time) { secret = st.secret })
	return secret
}
