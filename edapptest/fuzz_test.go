package edapptest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzServer throws arbitrary methods, paths, queries and bodies at a seeded
// fake's handler and checks that it answers with a valid status, valid JSON
// where it says JSON, and never panics (the top handler recovers, so the
// test counts recovered panics).
func FuzzServer(f *testing.F) {
	d := "usr_1"
	seeds := []struct {
		method, target, body string
	}{
		{"GET", "/v2/users?page=2&pageSize=1", ""},
		{"GET", "/V2/USERS?USERNAME=ALICE@EXAMPLE.COM", ""},
		{"POST", "/v2/users", `{"name":"zed","inviteCode":"OFFICE","roles":["reviewer"],"customFields":{"a":"b"}}`},
		{"POST", "/v2/users", `{"name":"x","externalId":"EMP-001"}`},
		{"PUT", "/v2/users/" + d, `{"timeZone":"Australia/Sydney","userGroups":["grp_2"]}`},
		{"DELETE", "/v2/users/usr_2", ""},
		{"GET", "/v2/users/usr_3/courses", ""},
		{"POST", "/v2/usergroups", `{"name":"n","inviteCode":"c","parentId":"grp_1"}`},
		{"GET", "/v2/usersgroups/grp_1/children?pageSize=1000", ""},
		{"POST", "/v2/usergroups/grp_2/users", `{"userIds":["usr_1","usr_4"]}`},
		{"DELETE", "/v2/usersgroups/grp_2/users?userId=usr_2", ""},
		{"GET", "/v2/catalog/courseCollections/col_1/courses", ""},
		{"GET", "/v2/catalog/courses/crs_1/lessons", ""},
		{"GET", "/v2/analytics/attempts?startDateTime=2024-01-01T00:00:00Z&endDateTime=2030-01-01", ""},
		{"GET", "/v2/analytics/courseprogress?modifiedSinceDateTime=bad", ""},
		{"GET", "/v2/analytics/coursestatistics?courseId=crs_2", ""},
		{"GET", "/v2/analytics/lessonstatistics", ""},
		{"GET", "/v2/analytics/lesson-progress/events?minEventDateTime=2020-01-01", ""},
		{"GET", "/v2/analytics/users/usr_2/lesson-progress", ""},
		{"GET", "/v2/analytics/users/usr_2/lesson-progress/events", ""},
		{"GET", "/v2/analytics/surveyquestiondefinitions", ""},
		{"GET", "/v2/analytics/surveyanswers?userId=usr_1", ""},
		{"POST", "/v2/webhooks", `{"eventName":"LessonCompletedEvent","webHookUrl":"http://127.0.0.1:1/","headers":{"X":"y"}}`},
		{"GET", "/v2/webhooks", ""},
		{"DELETE", "/v2/webhooks/whk_1", ""},
		{"POST", "/v1/users", `{"id":"usr_1","usergroups":[]}`},
		{"DELETE", "/v1/users/usr_9", ""},
		{"GET", "/v1/users/usr_2/courses", ""},
		{"POST", "/v1/usergroups", `{"id":"grp_1","users":[],"courses":["crs_1"]}`},
		{"DELETE", "/v1/usergroups/grp_2", ""},
		{"GET", "/v1/reports/user/usr_2/course/crs_1", ""},
		{"GET", "/v1/reports/activities", ""},
		{"GET", "/launch-lesson?token=x&lesson=les_1", ""},
		{"PATCH", "/v2/users", "{"},
		{"GET", "/%zz", ""},
		{"GET", "//v2//users//", ""},
		{"POST", "/v2/users", `{"name":"a","NAME":"b","roles":null,"userGroups":null}`},
		{"GET", "/v2/users?page=-1&pageSize=99999999999999999999", ""},
		{"GET", "/v1/users", ""},
		{"GET", "/v1/usergroups", ""},
		{"GET", "/v1/users/id/usr_1/token", ""},
		{"GET", "/v1/users/external/EMP-001/token", ""},
		{"GET", "/v2/analytics/attempts?startdatetime=2026-11-22+01:35:07.123456&enddatetime=2026-11-22T01:35:07+00", ""},
		{"GET", "/v2/analytics/courseprogress?modifiedSinceDateTime=2026-11-22T01:35:07%2B0000", ""},
		{"GET", "/launch-lesson?%74oken=x;y&TOKEN=z&lesson=les_1", ""},
		{"POST", "/launch-lesson", "token=x&lesson=les_1&score=9&action=complete&returnUrl=http://a/"},
		{"GET", "/learner/usr_2", ""},
	}
	for _, s := range seeds {
		f.Add(s.method, s.target, []byte(s.body), true)
	}
	f.Add("GET", "/v2/users", []byte(nil), false)

	f.Fuzz(func(t *testing.T, method, target string, body []byte, auth bool) {
		s := unstarted(t)
		s.URL = "http://fuzz.invalid"
		if _, err := seedDemo(s); err != nil {
			t.Fatal(err)
		}
		u, err := url.ParseRequestURI(target)
		if err != nil {
			u = &url.URL{Path: target}
		}
		req := &http.Request{Method: method, URL: u, Header: http.Header{}, Host: "fuzz.invalid",
			Body: io.NopCloser(bytes.NewReader(body))}
		if auth {
			req.Header.Set("Authorization", "Bearer "+s.Token)
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)

		if n := s.core.Panics(); n != 0 {
			t.Fatalf("%s %q: %d recovered panic(s)", method, target, n)
		}
		if rec.Code < 100 || rec.Code >= 600 {
			t.Fatalf("%s %q: status %d", method, target, rec.Code)
		}
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s %q: invalid JSON body %q", method, target, rec.Body.String())
		}
	})
}
