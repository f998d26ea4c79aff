package api_test

import (
	"net/http"
	"strings"
	"testing"
)

func TestWorkspacesAndKeys(t *testing.T) {
	v := newEnv(t)

	// Operator routes need the operator token, not a key.
	v.post("", "/v1/workspaces", map[string]any{"name": "x"}).expect(http.StatusUnauthorized).problem()
	v.post("wrong-operator-token-000000000000", "/v1/workspaces", map[string]any{"name": "x"}).expect(http.StatusUnauthorized)
	v.do(request{method: "POST", path: "/v1/workspaces", token: testOperatorToken, body: []byte(`{"name": ""}`), invalid: true}).
		expectField(http.StatusBadRequest, "body", "name")

	a := v.newWorkspace("Acme")
	if !strings.HasPrefix(a.Token, "rbk_") || len(a.Token) != 47 {
		t.Fatalf("token %q is not rbk_ + 43 characters", a.Token)
	}
	var ws struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}
	v.get(a.Token, "/v1/workspace").expect(http.StatusOK).decode(&ws)
	if ws.ID != a.ID || ws.Name != "Acme" {
		t.Fatalf("workspace = %+v", ws)
	}
	// A key does not open operator routes.
	v.post(a.Token, "/v1/workspaces", map[string]any{"name": "y"}).expect(http.StatusUnauthorized)

	// Only the hash is stored.
	var stored int64
	v.db.Raw("SELECT count(*) FROM api_keys WHERE hash = sha256(?::bytea) AND prefix = ?", a.Token, a.Token[:12]).Scan(&stored)
	if stored != 1 {
		t.Fatalf("no api_keys row holds the SHA-256 and prefix of the key")
	}
	var leaked int64
	v.db.Raw("SELECT count(*) FROM api_keys WHERE position(?::bytea in hash) > 0 OR name = ?", a.Token, a.Token).Scan(&leaked)
	if leaked != 0 {
		t.Fatal("the key itself is stored")
	}

	// A second key, listed with the first; revoking it stops it at once.
	second := v.post(a.Token, "/v1/api-keys", map[string]any{"name": "ci"}).expect(http.StatusCreated)
	var k2 struct {
		ID    int64  `json:"id"`
		Token string `json:"token"`
	}
	second.decode(&k2)
	v.get(k2.Token, "/v1/workspace").expect(http.StatusOK)
	var list struct {
		Data []struct {
			ID        int64   `json:"id"`
			Prefix    string  `json:"prefix"`
			RevokedAt *string `json:"revoked_at"`
		} `json:"data"`
		NextCursor *string `json:"next_cursor"`
	}
	v.get(a.Token, "/v1/api-keys").expect(http.StatusOK).decode(&list)
	if len(list.Data) != 2 || list.Data[0].ID != k2.ID || list.NextCursor != nil {
		t.Fatalf("keys = %+v", list)
	}
	if strings.Contains(string(v.get(a.Token, "/v1/api-keys").Body), a.Token) {
		t.Fatal("the key list shows a token")
	}
	v.del(a.Token, "/v1/api-keys/"+itoa(k2.ID)).expect(http.StatusNoContent)
	v.del(a.Token, "/v1/api-keys/"+itoa(k2.ID)).expect(http.StatusNoContent) // no-op
	p := v.get(k2.Token, "/v1/workspace").expect(http.StatusUnauthorized).problem()
	if p.Code != "unauthorized" {
		t.Fatalf("revoked key problem = %+v", p)
	}

	// Garbage credentials.
	v.do(request{method: "GET", path: "/v1/workspace", token: "rbk_short", invalid: true}).expect(http.StatusUnauthorized)
	v.do(request{method: "GET", path: "/v1/workspace", invalid: true}).expect(http.StatusUnauthorized)

	// The operator can add a key to any workspace; a missing one is 404.
	res := v.post(testOperatorToken, "/v1/workspaces/"+itoa(a.ID)+"/api-keys", map[string]any{"name": "ops"}).expect(http.StatusCreated)
	var k3 struct {
		WorkspaceID int64  `json:"workspace_id"`
		Token       string `json:"token"`
	}
	res.decode(&k3)
	if k3.WorkspaceID != a.ID {
		t.Fatalf("operator key workspace = %d", k3.WorkspaceID)
	}
	v.post(testOperatorToken, "/v1/workspaces/999999/api-keys", map[string]any{}).expect(http.StatusNotFound).problem()
}

func TestRateLimitPerKey(t *testing.T) {
	v := newEnv(t, withRateLimit(apiRateLimit(0.001, 2)))
	a := v.newWorkspace("A")
	b := v.newWorkspace("B")
	v.get(a.Token, "/v1/workspace").expect(http.StatusOK)
	v.get(a.Token, "/v1/workspace").expect(http.StatusOK)
	res := v.get(a.Token, "/v1/workspace").expect(http.StatusTooManyRequests)
	if p := res.problem(); p.Code != "rate_limited" {
		t.Fatalf("problem = %+v", p)
	}
	if ra := res.Header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Fatalf("Retry-After = %q", ra)
	}
	// Another key has its own bucket.
	v.get(b.Token, "/v1/workspace").expect(http.StatusOK)
}
