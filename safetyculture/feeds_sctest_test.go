package safetyculture

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/edapp-go/edapp"

	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// TestCourseProgressFeedAgainstSctest walks the course-progress feed of a
// migrated account through next_page, for each completion status, and
// resumes a walk from a stored NextPage.
func TestCourseProgressFeedAgainstSctest(t *testing.T) {
	t.Parallel()
	fake, m := migratedFake(t)
	feeds := clientOf(t, fake).Feeds
	ctx := testCtx(t)
	for _, status := range []CompletionStatus{CompletionAll, CompletionCompleted, CompletionNotCompleted} {
		rows := mustCollect(t, feeds.AllCourseProgress(ctx, &FeedOptions{CompletionStatus: status, Limit: 7}))
		if want := fake.CourseProgressCount(string(status)); len(rows) != want || want == 0 {
			t.Errorf("%s: %d rows, the fake holds %d", status, len(rows), want)
		}
	}
	if got := fake.RequestCount("GET /training/v1/feed/training-course-progress"); got < 3*2 {
		t.Errorf("%d requests: the walks did not page", got)
	}

	first, err := feeds.ListCourseProgress(ctx, &FeedOptions{Limit: 5, UserID: m.Carried[0].UserID})
	if err != nil || len(first.Items) == 0 || first.Items[0].UserID != m.Carried[0].UserID || first.Items[0].UserEmail == "" {
		t.Fatalf("first page for one user: %+v, %v", first, err)
	}
	resumed, err := feeds.ListCourseProgress(ctx, &FeedOptions{Limit: 1})
	for n := 1; err == nil && resumed.NextPage != ""; n++ {
		resumed, err = feeds.ListCourseProgress(ctx, &FeedOptions{NextPage: resumed.NextPage})
		if err == nil && len(resumed.Items) != 1 {
			t.Fatalf("page %d has %d rows: the limit was not carried in next_page", n, len(resumed.Items))
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestCourseProgressFeedCamelCaseAgainstSctest reads the feed in the
// camelCase spelling a third-party client expects.
func TestCourseProgressFeedCamelCaseAgainstSctest(t *testing.T) {
	t.Parallel()
	fake, m := migratedFake(t)
	serveCamelCase(t, fake)
	rows := mustCollect(t, clientOf(t, fake).Feeds.AllCourseProgress(testCtx(t), &FeedOptions{CompletionStatus: CompletionCompleted}))
	if len(rows) < len(m.Carried) {
		t.Fatalf("%d completed rows, %d carried", len(rows), len(m.Carried))
	}
	r := rows[0]
	if r.UserID == "" || r.CourseID == "" || r.CompletedAt.IsZero() || r.ProgressPercent != 100 {
		t.Errorf("camelCase row not read: %+v", r)
	}
}

// serveCamelCase makes the fake answer the course-progress feed's
// completed rows, on one page, in camelCase (courseId, openedAt...).
func serveCamelCase(t *testing.T, fake *sctest.Server) {
	t.Helper()
	const route = "/training/v1/feed/training-course-progress"
	req, _ := http.NewRequest(http.MethodGet, fake.URL+route+"?limit=1000&completion_status="+string(CompletionCompleted), nil)
	req.Header.Set("Authorization", "Bearer "+fake.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct{ Data []map[string]any }
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		t.Fatal(err)
	}
	for i, row := range page.Data {
		page.Data[i] = map[string]any{}
		for k, v := range row {
			words := strings.Split(k, "_")
			for j := 1; j < len(words); j++ {
				words[j] = strings.ToUpper(words[j][:1]) + words[j][1:]
			}
			page.Data[i][strings.Join(words, "")] = v
		}
	}
	body, _ := json.Marshal(map[string]any{"metadata": map[string]any{"next_page": nil}, "data": page.Data})
	if err := fake.Handle("GET "+route, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(body) })); err != nil {
		t.Fatal(err)
	}
}

// TestOrganisationFeedsAgainstSctest walks the five organisation feeds of
// a migrated account, with and without the filters the exporter sends.
func TestOrganisationFeedsAgainstSctest(t *testing.T) {
	t.Parallel()
	fake, m := migratedFake(t)
	feeds := clientOf(t, fake).Feeds
	ctx := testCtx(t)

	active := mustCollect(t, feeds.AllUsers(ctx))
	all := walkPages(t, func(next string) (*FeedPage[User], error) {
		return feeds.ListUsers(ctx, &FeedOptions{NextPage: next, Limit: 9, IncludeInactive: true})
	})
	if len(all) != len(m.Users) || len(active) != len(all)-len(m.After.Deactivated) {
		t.Errorf("users: %d active, %d in all; migrated %d, deactivated %d", len(active), len(all), len(m.Users), len(m.After.Deactivated))
	}
	if groups := mustCollect(t, feeds.AllGroups(ctx)); len(groups) != len(m.Groups) {
		t.Errorf("groups: %d, migrated %d", len(groups), len(m.Groups))
	}
	if members := mustCollect(t, feeds.AllGroupUsers(ctx)); len(members) == 0 || members[0].GroupID == "" || members[0].UserID == "" {
		t.Errorf("group users: %+v", members)
	}
	sites := mustCollect(t, feeds.AllSites(ctx))
	leafOnly := true
	leaves := walkPages(t, func(next string) (*FeedPage[Site], error) {
		return feeds.ListSites(ctx, &FeedOptions{NextPage: next, Limit: 2, ShowOnlyLeafNodes: &leafOnly})
	})
	if len(sites) != len(m.Sites) || len(leaves) == 0 || len(leaves) >= len(sites) {
		t.Errorf("sites: %d, leaves %d, migrated %d", len(sites), len(leaves), len(m.Sites))
	}
	if members := mustCollect(t, feeds.AllSiteMembers(ctx)); len(members) == 0 || members[0].SiteID == "" || members[0].MemberID == "" {
		t.Errorf("site members: %+v", members)
	}
}

// walkPages reads a feed page by page through ListX and NextPage, as a
// job that resumes does.
func walkPages[T any](t *testing.T, list func(next string) (*FeedPage[T], error)) []T {
	t.Helper()
	var out []T
	next := ""
	for range 10_000 {
		page, err := list(next)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, page.Items...)
		if next = page.NextPage; next == "" {
			return out
		}
	}
	t.Fatal("the feed did not end")
	return nil
}

// TestFeedPageRemainingAgainstSctest: a feed's first page counts the
// whole feed (its rows and remaining_records) in its Response's Total; a
// later page carries its remaining_records but no total; a walk that
// fills a WithResponseInto sees the total on its first page.
func TestFeedPageRemainingAgainstSctest(t *testing.T) {
	t.Parallel()
	fake := sctest.New(t)
	for i := range 5 {
		if _, err := fake.AddUser(sctest.UserSpec{Email: fmt.Sprintf("u%d@example.com", i)}); err != nil {
			t.Fatal(err)
		}
	}
	feeds := clientOf(t, fake).Feeds
	ctx := testCtx(t)
	first, err := feeds.ListUsers(ctx, &FeedOptions{Limit: 2, IncludeInactive: true})
	if err != nil {
		t.Fatal(err)
	}
	want := len(mustCollect(t, WalkFeed(ctx, feeds.ListUsers, &FeedOptions{IncludeInactive: true})))
	left, ok := first.Remaining()
	if total, has := first.Response.Total(); !has || total != want || !ok || left != want-2 {
		t.Fatalf("first page: Total() = %d, %v; Remaining() = %d, %v; want %d in all, %d left", total, has, left, ok, want, want-2)
	}
	second, err := feeds.ListUsers(ctx, &FeedOptions{NextPage: first.NextPage})
	if err != nil {
		t.Fatal(err)
	}
	if _, has := second.Response.Total(); has {
		t.Error("a later page reports a total: its rows before it are unknown to it")
	}
	if left, ok := second.Remaining(); !ok || left != want-4 {
		t.Errorf("second page: Remaining() = %d, %v, want %d", left, ok, want-4)
	}
	var resp edapp.Response
	for _, err := range WalkFeed(ctx, feeds.ListUsers, &FeedOptions{Limit: 2, IncludeInactive: true}, edapp.WithResponseInto(&resp)) {
		if err != nil {
			t.Fatal(err)
		}
		if total, has := resp.Total(); !has || total != want {
			t.Fatalf("walk's first page: Total() = %d, %v, want %d", total, has, want)
		}
		break
	}
}
