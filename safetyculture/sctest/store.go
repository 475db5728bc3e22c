package sctest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/edapp-go/edapp/internal/fakeserver"
)

// The seeding helpers' errors: an unknown id, a duplicate, and a value
// the service would refuse.
var (
	ErrNotFound = errors.New("sctest: not found")
	ErrConflict = errors.New("sctest: conflict")
	ErrInvalid  = errors.New("sctest: invalid")
)

// store is the organisation, guarded by Server.mu.
type store struct {
	seq         int // numbers the ids the fake makes
	orgID       string
	ownerID     string // the token's user, as WhoAmI answers
	users       fakeserver.Table[user]
	userByEmail map[string]*user
	groups      fakeserver.Table[wireGroup]
	groupUsers  []wireGroupUser
	members     map[string]bool // groupUsers and siteMembers by pair(user, group or site), for their uniqueness
	sites       fakeserver.Table[wireSite]
	siteMembers []wireSiteMember
	courses     fakeserver.Table[course]
	lessons     fakeserver.Table[lesson]
	collections fakeserver.Table[collection]
	paths       fakeserver.Table[wirePath]
	refreshes   fakeserver.Table[wireRapidRefresh]
	progress    fakeserver.Table[ProgressSpec] // by pair(user, course), in the feed's order
	assignments map[string]map[Assignment]bool
	analytics   analyticsStore
	webhooks    fakeserver.Table[webhook]
	secret      string // the webhook signature secret
}

func newStore() *store {
	st := &store{userByEmail: map[string]*user{}, members: map[string]bool{}, assignments: map[string]map[Assignment]bool{},
		secret: fakeserver.RandomHex(32), analytics: analyticsStore{rows: map[string][]*analyticsRow{}, questions: map[string]map[string]any{}}}
	st.orgID = "role_" + st.hexID("org", 32)
	return st
}

func pair(userID, id string) string { return userID + "\x00" + id }

// hexID makes the next id of n hex digits, from the order of the seeding
// calls, so that the same calls make the same ids.
func (st *store) hexID(kind string, n int) string {
	st.seq++
	h := sha256.Sum256([]byte(fmt.Sprintf("sctest\x00%s\x00%d\x00", kind, st.seq)))
	return hex.EncodeToString(h[:])[:n]
}

func (st *store) uuid(kind string) string { return uuidOf(st.hexID(kind, 32)) }

func uuidOf(h string) string {
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func update[T any](s *Server, fn func(st *store, now time.Time) (T, error)) (T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fn(s.st, s.Now())
}

func (s *Server) write(fn func(st *store, now time.Time) error) error {
	_, err := update(s, func(st *store, now time.Time) (bool, error) { return true, fn(st, now) })
	return err
}

func view[T any](s *Server, fn func(st *store) T) T {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return fn(s.st)
}

// OrganisationID returns the organisation's id, as WhoAmI answers it.
func (s *Server) OrganisationID() string {
	return view(s, func(st *store) string { return st.orgID })
}

// WebhookSecret returns the secret the fake signs deliveries with, as GET
// /webhooks/v1/token answers it.
func (s *Server) WebhookSecret() string {
	return view(s, func(st *store) string { return st.secret })
}

// UserCount is the number of users the fake holds.
func (s *Server) UserCount() int {
	return view(s, func(st *store) int { return st.users.Len() })
}
