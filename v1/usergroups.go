package v1

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/ids"
	"github.com/edapp-go/edapp/internal/pager"
)

// UserGroupsService covers the v1 user group operations: POST
// /v1/usergroups, DELETE /v1/usergroups/{id} and GET /v1/usergroups.
type UserGroupsService service

// UserGroup is the v1 shape of a user group.
//
// Users and Courses are sent with omitzero: a nil slice is left out of the
// body (an update then leaves that list as it is), while an empty, non-nil
// slice is sent as []. An empty Users removes every user from the group, so
// UserGroup{ID: id, Users: []string{}} empties a group, and
// UserGroup{ID: id, Name: name} renames it without touching its members.
// An empty Name is left out too (the vendor does not document which fields
// are required).
type UserGroup struct {
	// ID is returned by the service. Sending it makes Save an update.
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
	// Users holds user ids. An empty, non-nil slice removes every member.
	Users []string `json:"users,omitzero"`
	// Courses holds the ids of the courses assigned to the group.
	Courses []string        `json:"courses,omitzero"`
	Extra   edapp.RawFields `json:"-"`
}

// Save inserts or updates a group with POST /v1/usergroups. Without an ID it
// is an insert; with an ID it is an update of that group, and the id
// travels in the body. It returns the group as the service
// answered, with its id; when the answer to an update carries no id, the
// id sent is kept. An insert answered without an id is an error.
//
// EdApp API: POST /v1/usergroups
func (s *UserGroupsService) Save(ctx context.Context, group UserGroup, reqOpts ...edapp.RequestOption) (*UserGroup, error) {
	path := ids.Fill("/v1/usergroups")
	var out UserGroup
	if err := (*service)(s).do(ctx, http.MethodPost, path, group, &out, reqOpts...); err != nil {
		return nil, err
	}
	if out.ID == "" {
		if group.ID == "" {
			return nil, fmt.Errorf("edapp/v1: POST %s: the answer carries no id for the inserted group", path.Path)
		}
		if out.Name == "" && out.Users == nil && out.Courses == nil {
			// An empty answer to an update: the group is what was sent.
			out = group
			out.Users = slices.Clone(group.Users)
			out.Courses = slices.Clone(group.Courses)
		}
		out.ID = group.ID
	}
	return &out, nil
}

// Delete deletes a group with DELETE /v1/usergroups/{id}. An answer of
// {"success": false} is an *[edapp.APIError] matching [edapp.ErrUnsuccessful];
// {"success": true}, {} and an empty answer are success.
//
// EdApp API: DELETE /v1/usergroups/{groupId}
func (s *UserGroupsService) Delete(ctx context.Context, groupID string, reqOpts ...edapp.RequestOption) error {
	if err := ids.Require("groupID", groupID); err != nil {
		return err
	}
	return (*service)(s).deleteOK(ctx, ids.Fill("/v1/usergroups/{groupId}", groupID), reqOpts)
}

// List lists the account's user groups in their v1 shape: GET
// /v1/usergroups. The answer is taken to be a bare JSON array; the paged
// envelope is accepted too (then only its one answer is read). Inferred:
// the vendor does not document this operation; an outside v1 client calls
// it.
//
// EdApp API: GET /v1/usergroups
func (s *UserGroupsService) List(ctx context.Context, reqOpts ...edapp.RequestOption) ([]UserGroup, error) {
	var l pager.List[UserGroup]
	if err := (*service)(s).do(ctx, http.MethodGet, ids.Fill("/v1/usergroups"), nil, &l, reqOpts...); err != nil {
		return nil, err
	}
	return l.Items, nil
}
