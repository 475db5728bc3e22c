package core

import (
	"testing"
)

func FuzzErrorBody(f *testing.F) {
	for _, s := range []string{`{"message":"x"}`, `{"error":"y"}`, `{"error":{"a":1}}`, `<html>`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		_ = MessageOf(body)
		e := &APIError{StatusCode: 500, Method: "GET", Path: "/x", Body: body}
		_ = e.Error()
	})
}
