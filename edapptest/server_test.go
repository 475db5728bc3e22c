package edapptest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRequestLogKeepsNoLaunchToken(t *testing.T) {
	h := newHarness(t)
	tok := "3f1c8a6e-launch-secret"
	h.ResetRequests()
	for _, q := range []string{
		"token=" + tok + "&lesson=l1",
		"TOKEN=" + url.QueryEscape(tok) + "&lesson=l1",
		"%74oken=" + url.QueryEscape(tok) + "&lesson=l1", // a percent-encoded name
		"lesson=l1&token=" + url.QueryEscape(tok) + ";x",
		"token=" + url.QueryEscape(tok) + "&token=" + url.QueryEscape(tok),
	} {
		h.do("GET", "/v2/users?"+q, nil)
	}
	reqs := h.Requests()
	require.Len(t, reqs, 5)
	assert.Equal(t, "lesson=l1&token=REDACTED", reqs[0].RawQuery)
	assertNoSecret(t, dumpRequests(t, reqs), tok, "request log")
}

func TestAuthBeforeBody(t *testing.T) {
	h := newHarness(t)
	big := bytes.Repeat([]byte("a"), MaxBodyBytes+1)
	small := []byte(`{"name":"sneaky"}`)

	// Without a valid token nothing is read or kept, whatever the size.
	for _, body := range [][]byte{small, big} {
		r := h.raw("POST", "/v2/users", "wrong", body)
		assert.Equal(t, http.StatusUnauthorized, r.status, "auth is checked before the body")
	}
	// With a valid token an oversized body gets 413 and is not kept.
	r := h.raw("POST", "/v2/users", h.Token, big)
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.status)
	assert.Contains(t, r.message(t), "1048576 bytes")
	// So does one that does not declare its length.
	req, _ := http.NewRequest("POST", h.URL+"/v2/users", io.MultiReader(bytes.NewReader(big)))
	req.ContentLength = -1
	req.Header.Set("Authorization", "Bearer "+h.Token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, res.StatusCode)
	// A body at the limit is read.
	at := append([]byte(`{"name":"limit","email":"`), bytes.Repeat([]byte("e"), MaxBodyBytes-len(`{"name":"limit","email":""}`))...)
	at = append(at, `"}`...)
	require.Len(t, at, MaxBodyBytes)
	assert.Equal(t, 200, h.raw("POST", "/v2/users", h.Token, at).status)

	reqs := h.Requests()
	require.Len(t, reqs, 5)
	for i, r := range reqs[:4] {
		assert.Nil(t, r.Body, "request %d: body kept", i)
	}
	assert.Len(t, reqs[4].Body, MaxBodyBytes)
	var users page[v2User]
	h.get("/v2/users", &users)
	assert.Equal(t, 1, users.TotalCount, "the unauthenticated create did nothing")
}

func TestManagedGroupsField(t *testing.T) {
	h := newHarness(t)
	g := h.mustGroup("G", "", "")
	for i, name := range []string{"managedUserGroups", "userGroupsManaged"} {
		var u v2User
		r := h.do("POST", "/v2/users", map[string]any{"name": fmt.Sprintf("u%d", i), name: []string{g}})
		require.Equal(t, 200, r.status, string(r.body))
		r.json(t, &u)
		assert.Equal(t, []string{g}, u.UserGroupsManaged, "create with %s", name)
		assert.NotContains(t, keys(t, r.body), "managedUserGroups", "responses write userGroupsManaged")
		var plain v2User
		h.ok("POST", "/v2/users", map[string]any{"name": fmt.Sprintf("p%d", i)}, &plain)
		h.ok("PUT", "/v2/users/"+plain.ID, map[string]any{name: []string{g}}, &plain)
		assert.Equal(t, []string{g}, plain.UserGroupsManaged, "update with %s", name)
	}
}
