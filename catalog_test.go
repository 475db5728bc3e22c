package edapp

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCatalogListCollections(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/catalog/coursecollections", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodGet, "/v2/catalog/coursecollections", "page=1&pageSize=25", "")
		serveFixture(t, w, "catalog/collections.json")
	})

	page, err := client.Catalog.ListCollections(context.Background(), &ListOptions{Page: 1, PageSize: 25})
	require.NoError(t, err)
	assert.Equal(t, 2, totalOf(page))
	require.Len(t, page.Items, 2)
	c := page.Items[0]
	assert.Equal(t, "col-onboarding", c.ID)
	assert.Equal(t, "Onboarding", c.Title)
	assert.Equal(t, "Everything for your first week.", c.Description)
	// Unknown fields are kept as sent.
	assert.Equal(t, RawFields{
		"courseCount": json.RawMessage(`4`),
		"isPublished": json.RawMessage(`true`),
		"thumbnail":   json.RawMessage(`{"url": "https://cdn.example.com/thumbs/onboarding.png", "width": 640}`),
	}, c.Extra)
	assert.Equal(t, CourseCollection{ID: "col-compliance", Title: "Compliance"}, page.Items[1], "no Extra when nothing is unknown")
}

func TestCatalogListCollectionCourses(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/catalog/coursecollections/col-onboarding/courses", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodGet, "/v2/catalog/coursecollections/col-onboarding/courses", "pageSize=1000", "")
		serveFixture(t, w, "catalog/collection-courses.json")
	})

	page, err := client.Catalog.ListCollectionCourses(context.Background(), "col-onboarding", &ListOptions{PageSize: 1000})
	require.NoError(t, err)
	assertPage(t, &Page[Course]{Response: counted(1), Items: []Course{{
		ID: "crs-welcome", ExternalID: "LMS-WEL-1", Title: "Welcome aboard", Description: "Meet the team.",
		Status: "published", Locale: "en", Duration: 8, ThumbnailURL: "https://cdn.example.com/thumbs/welcome.png",
		CreatedDateTime:  Time{time.Date(2023, 6, 30, 22, 0, 0, 0, time.FixedZone("", 10*3600))},
		ModifiedDateTime: Time{time.Date(2023, 7, 1, 0, 0, 0, 0, time.UTC)},
	}}}, page)
	assert.True(t, page.Items[0].CreatedDateTime.Equal(time.Date(2023, 6, 30, 12, 0, 0, 0, time.UTC)), "createDateTime")
}

func TestCatalogListCourses(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/catalog/courses", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodGet, "/v2/catalog/courses", "", "")
		serveFixture(t, w, "catalog/courses.json")
	})

	page, err := client.Catalog.ListCourses(context.Background(), nil)
	require.NoError(t, err)
	assertPage(t, &Page[Course]{Response: counted(2), Items: []Course{
		{
			ID: "crs-safety", ExternalID: "LMS-SAFE-1", Title: "Workplace Safety Basics",
			Description: "Hazards, reporting and first aid.", Status: "published", Locale: "en", Duration: 25,
			ThumbnailURL:     "https://cdn.example.com/thumbs/safety.png",
			CreatedDateTime:  Time{time.Date(2023, 11, 2, 9, 15, 0, 0, time.UTC)},
			ModifiedDateTime: Time{time.Date(2024, 1, 10, 3, 0, 0, 0, time.UTC)},
			Extra:            map[string]json.RawMessage{"brandingId": json.RawMessage(`"brand-7"`)}, // kept as sent
		},
		{
			ID: "crs-forklift", ExternalID: "LMS-FORK-2", Title: "Forklift Refresher", Status: "draft", Locale: "en-AU",
			Duration:         12,
			CreatedDateTime:  Time{time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)},        // createDateTime, no zone
			ModifiedDateTime: Time{time.Date(2024, 2, 3, 10, 20, 30, 500e6, time.UTC)}, // fraction, no zone
		},
	}}, page)
}

func TestCatalogLessons(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/catalog/courses/crs-safety/lessons", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodGet, "/v2/catalog/courses/crs-safety/lessons", "page=1&pageSize=1000", "")
		serveFixture(t, w, "catalog/lessons.json") // a bare array
	})

	lessons, err := client.Catalog.Lessons(context.Background(), "crs-safety")
	require.NoError(t, err)
	assert.Equal(t, []Lesson{
		{
			ID: "les-hazards", ExternalID: "LMS-SAFE-1-L1", Title: "Spotting hazards", Description: "Five common hazards.",
			Status: "published", CourseID: "crs-safety", MinimumScore: 80,
			Extra: map[string]json.RawMessage{
				"lessonType": json.RawMessage(`"microlesson"`),
				"config":     json.RawMessage(`{"attempts": 3}`),
			},
		},
		{ID: "les-report", Title: "Reporting an incident", Status: "draft", CourseID: "crs-safety"},
	}, lessons)
}

func TestCatalogLessonsAcceptsAnEnvelope(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/catalog/courses/c/lessons", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"totalCount":1,"items":[{"id":"l1","minimumScore":72.5}]}`))
	})
	lessons, err := client.Catalog.Lessons(context.Background(), "c")
	require.NoError(t, err)
	assert.Equal(t, []Lesson{{ID: "l1", CourseID: "c", MinimumScore: 72.5}}, lessons)
}

func TestCourseDecodeVariants(t *testing.T) {
	t.Parallel()
	var c Course
	require.NoError(t, decodeAnswer([]byte(`{"createdDateTime":"2024-01-01T00:00:00Z","createDateTime":"2020-01-01T00:00:00Z"}`), &c))
	assert.Equal(t, 2024, c.CreatedDateTime.Year(), "the documented spelling wins")

	// Encoding writes the documented spelling, which decodes back.
	b, err := json.Marshal(Course{ID: "c", CreatedDateTime: Time{time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}})
	require.NoError(t, err)
	assert.Contains(t, string(b), `"createdDateTime":"2024-01-01T00:00:00.000Z"`)
	var back Course
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, "c", back.ID)
}

func TestCatalogAll(t *testing.T) {
	t.Parallel()
	key := func(c Course) string { return c.ID }
	t.Run("AllCollections", func(t *testing.T) {
		checkAllPages(t, "/v2/catalog/coursecollections", "", func(ctx context.Context, c *Client) ([]string, error) {
			return collectKeys(c.Catalog.AllCollections(ctx, &ListOptions{PageSize: 2}), func(c CourseCollection) string { return c.ID })
		})
	})
	t.Run("AllCollectionCourses", func(t *testing.T) {
		checkAllPages(t, "/v2/catalog/coursecollections/col-1/courses", "", func(ctx context.Context, c *Client) ([]string, error) {
			return collectKeys(c.Catalog.AllCollectionCourses(ctx, "col-1", &ListOptions{PageSize: 2}), key)
		})
	})
	t.Run("AllCourses", func(t *testing.T) {
		checkAllPages(t, "/v2/catalog/courses", "", func(ctx context.Context, c *Client) ([]string, error) {
			return collectKeys(c.Catalog.AllCourses(ctx, &ListOptions{PageSize: 2}), key)
		})
	})
}

func TestCatalogEscapesIDs(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	var paths []string
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.EscapedPath())
		_, _ = w.Write([]byte(`[]`))
	})
	ctx := context.Background()
	_, err := client.Catalog.ListCollectionCourses(ctx, "a/b", nil)
	require.NoError(t, err)
	_, err = client.Catalog.Lessons(ctx, "c?d")
	require.NoError(t, err)
	assert.Equal(t, []string{
		"/v2/catalog/coursecollections/a%2Fb/courses",
		"/v2/catalog/courses/c%3Fd/lessons",
	}, paths)
}

func TestCatalogEmptyIDsAreRefused(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	refuseRequests(t, mux)
	ctx := context.Background()
	_, err := client.Catalog.ListCollectionCourses(ctx, "", nil)
	checkRefused(t, err)
	_, err = firstErr(client.Catalog.AllCollectionCourses(ctx, "", nil))
	checkRefused(t, err)
	_, err = client.Catalog.Lessons(ctx, "")
	checkRefused(t, err)
}

// Lesson records probably come without a course id: Lessons fills it from
// the path, and keeps one the service did send.
func TestLessonsFillCourseIDFromThePath(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/catalog/courses/crs-1/lessons", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`[{"id":"l1","title":"A"},{"id":"l2","courseId":""},{"id":"l3","courseId":"crs-other"}]`))
	})
	lessons, err := client.Catalog.Lessons(context.Background(), "crs-1")
	require.NoError(t, err)
	require.Len(t, lessons, 3)
	assert.Equal(t, "crs-1", lessons[0].CourseID)
	assert.Equal(t, "crs-1", lessons[1].CourseID)
	assert.Equal(t, "crs-other", lessons[2].CourseID, "a course id the service sent is kept")
}

func TestCourseCollectionExternalID(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/catalog/coursecollections", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"totalCount":1,"items":[{"id":"col-1","externalId":"ext-col-1","title":"Onboarding","colour":"red"}]}`))
	})
	p, err := client.Catalog.ListCollections(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, p.Items, 1)
	c := p.Items[0]
	assert.Equal(t, "ext-col-1", c.ExternalID)
	assert.NotContains(t, c.Extra, "externalId", "a known field is not kept in Extra too")
	assert.Contains(t, c.Extra, "colour")
	b, err := json.Marshal(c)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"externalId":"ext-col-1"`)
}
