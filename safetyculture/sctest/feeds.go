package sctest

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// feedPage is one page of a feed: where it starts and how long it is.
type feedPage struct {
	offset, limit int
}

// readFeedPage reads limit (1 to 1000, default 100) and where to start:
// the cursor a next_page carries, or, on a first page, offset. A bad
// value gets 400 and false.
func readFeedPage(w http.ResponseWriter, q url.Values) (feedPage, bool) {
	limit, ok := positiveParam(q.Get("limit"), 100, 1000)
	if !ok {
		writeError(w, http.StatusBadRequest, codeInvalidArgument, "limit must be from 1 to 1000")
		return feedPage{}, false
	}
	p := feedPage{limit: limit}
	if c := q.Get("cursor"); c != "" {
		b, err := base64.RawURLEncoding.DecodeString(c)
		n, err2 := strconv.Atoi(string(b))
		if err != nil || err2 != nil || n < 0 {
			writeError(w, http.StatusBadRequest, codeInvalidArgument, "bad cursor")
			return feedPage{}, false
		}
		p.offset = n
	} else if o := q.Get("offset"); o != "" {
		n, err := strconv.Atoi(o)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, codeInvalidArgument, "offset must be a whole number")
			return feedPage{}, false
		}
		p.offset = n
	}
	return p, true
}

// nextPage is the relative path of the page after this one, carrying its
// own cursor and the first request's filters, or nil at the end.
func nextPage(r *http.Request, p feedPage, total int) *string {
	end := p.offset + p.limit
	if end >= total {
		return nil
	}
	q := r.URL.Query()
	q.Del("offset")
	q.Set("cursor", base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(end))))
	next := r.URL.Path + "?" + q.Encode()
	return &next
}

// writeFeed answers one page of rows as {metadata, data}; withRemaining
// adds remaining_records, which the course-progress feed does not send.
func writeFeed[T any](w http.ResponseWriter, r *http.Request, p feedPage, rows []T, withRemaining bool) {
	start, end := p.window(len(rows))
	writeFeedPage(w, r, p, append([]T{}, rows[start:end]...), len(rows), withRemaining)
}

// window is where the page falls in total rows: [start, end).
func (p feedPage) window(total int) (start, end int) {
	start = min(p.offset, total)
	return start, min(start+p.limit, total)
}

// writeFeedPage answers the page's rows, of total, as writeFeed does.
func writeFeedPage[T any](w http.ResponseWriter, r *http.Request, p feedPage, page []T, total int, withRemaining bool) {
	_, end := p.window(total)
	out := wireFeed[T]{Data: page}
	if out.Data == nil {
		out.Data = []T{}
	}
	out.Metadata.NextPage = nextPage(r, p, total)
	if withRemaining {
		remaining := total - end
		out.Metadata.RemainingRecords = &remaining
	} else if out.Metadata.NextPage != nil {
		token := r.URL.Query().Get("cursor")
		if u, err := url.Parse(*out.Metadata.NextPage); err == nil {
			token = u.Query().Get("cursor")
		}
		out.Metadata.NextPageToken = &token
	}
	writeJSON(w, http.StatusOK, out)
}

// boolParam reads a true/false parameter; absent is false.
func boolParam(w http.ResponseWriter, q url.Values, name string) (bool, bool) {
	raw := q.Get(name)
	if raw == "" {
		return false, true
	}
	v, err := strconv.ParseBool(raw)
	if err != nil {
		writeError(w, http.StatusBadRequest, codeInvalidArgument, name+" must be true or false")
		return false, false
	}
	return v, true
}

// feedUsers answers GET /feed/users: active users only, unless
// include_inactive=true (the exporter sends no filter, so it gets the
// active ones).
func (s api) feedUsers(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, ok := readFeedPage(w, q)
	inactive, ok2 := boolParam(w, q, "include_inactive")
	if !ok || !ok2 {
		return
	}
	var rows []wireUser
	s.read(func(st *store, _ time.Time) {
		for _, u := range st.users.All() {
			if u.active || inactive {
				rows = append(rows, wireUser{ID: u.id, OrganisationID: st.orgID, Email: u.email, Firstname: u.firstName,
					Lastname: u.lastName, Active: u.active, LastSeenAt: wtp(u.lastSeen), SeatType: u.seatType, CreatedAt: wtp(u.created)})
			}
		}
	})
	writeFeed(w, r, p, rows, true)
}

// serveFeed answers a page of the rows rows builds, with remaining_records.
func serveFeed[T any](s *Server, w http.ResponseWriter, r *http.Request, rows func(st *store) []T) {
	p, ok := readFeedPage(w, r.URL.Query())
	if !ok {
		return
	}
	var out []T
	s.read(func(st *store, _ time.Time) { out = rows(st) })
	writeFeed(w, r, p, out, true)
}

func (s api) feedGroups(w http.ResponseWriter, r *http.Request) {
	serveFeed(s.server, w, r, func(st *store) []wireGroup {
		return each(&st.groups, func(g *group) wireGroup { return wireGroup{ID: g.id, Name: g.name, OrganisationID: st.orgID} })
	})
}

func (s api) feedGroupUsers(w http.ResponseWriter, r *http.Request) {
	serveFeed(s.server, w, r, func(st *store) []wireGroupUser {
		var rows []wireGroupUser
		for _, k := range st.groupUsers {
			rows = append(rows, wireGroupUser{UserID: k.userID, GroupID: k.parentID, OrganisationID: st.orgID})
		}
		return rows
	})
}

// feedSites answers GET /feed/sites: deleted sites only with
// include_deleted=true; with show_only_leaf_nodes=true, only the sites no
// listed site has for a parent.
func (s api) feedSites(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, ok := readFeedPage(w, q)
	deleted, ok2 := boolParam(w, q, "include_deleted")
	leafOnly, ok3 := boolParam(w, q, "show_only_leaf_nodes")
	if !ok || !ok2 || !ok3 {
		return
	}
	var rows []wireSite
	s.read(func(st *store, _ time.Time) { rows = st.wireSites(deleted, leafOnly) })
	writeFeed(w, r, p, rows, true)
}

func (st *store) wireSites(includeDeleted, leafOnly bool) []wireSite {
	listed := func(s *site) bool { return includeDeleted || !s.deleted }
	parents := map[string]bool{}
	for _, s := range st.sites.All() {
		if listed(s) && s.parentID != "" {
			parents[s.parentID] = true
		}
	}
	var rows []wireSite
	for _, s := range st.sites.All() {
		if !listed(s) || (leafOnly && parents[s.id]) {
			continue
		}
		var parent *string
		if ps := st.sites.Get(s.parentID); ps != nil {
			parent = &ps.uuid
		}
		rows = append(rows, wireSite{ID: s.id, Name: s.name, CreatorID: s.creatorID, OrganisationID: st.orgID,
			Deleted: s.deleted, SiteUUID: s.uuid, MetaLabel: s.metaLabel, ParentID: parent})
	}
	return rows
}

func (s api) feedSiteMembers(w http.ResponseWriter, r *http.Request) {
	serveFeed(s.server, w, r, func(st *store) []wireSiteMember {
		var rows []wireSiteMember
		for _, k := range st.siteMembers {
			rows = append(rows, wireSiteMember{SiteID: k.parentID, MemberID: k.userID})
		}
		return rows
	})
}
