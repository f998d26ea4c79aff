package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rebound-hq/rebound/internal/store"
)

type workspaceResponse struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
}

func toWorkspaceResponse(w store.Workspace) workspaceResponse {
	return workspaceResponse{ID: w.ID, Name: w.Name, CreatedAt: w.CreatedAt}
}

type apiKeyResponse struct {
	ID         int64      `json:"id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
}

func toAPIKeyResponse(k store.APIKey) apiKeyResponse {
	return apiKeyResponse{ID: k.ID, Name: k.Name, Prefix: k.Prefix, CreatedAt: k.CreatedAt,
		LastUsedAt: k.LastUsedAt, RevokedAt: k.RevokedAt}
}

// apiKeyCreatedResponse is the only response that carries a key's token.
type apiKeyCreatedResponse struct {
	ID          int64     `json:"id"`
	WorkspaceID int64     `json:"workspace_id"`
	Name        string    `json:"name"`
	Prefix      string    `json:"prefix"`
	CreatedAt   time.Time `json:"created_at"`
	Token       string    `json:"token"`
}

func toAPIKeyCreatedResponse(k store.APIKey, token string) apiKeyCreatedResponse {
	return apiKeyCreatedResponse{ID: k.ID, WorkspaceID: k.WorkspaceID, Name: k.Name, Prefix: k.Prefix,
		CreatedAt: k.CreatedAt, Token: token}
}

type workspaceCreateRequest struct {
	Name       string `json:"name"`
	APIKeyName string `json:"api_key_name"`
}

type apiKeyCreateRequest struct {
	Name string `json:"name"`
}

// newKeyRow makes a fresh key row named name and returns it with its token.
func newKeyRow(workspaceID int64, name string) (store.APIKey, string, error) {
	token, prefix, hash, err := newAPIKey()
	if err != nil {
		return store.APIKey{}, "", err
	}
	return store.APIKey{WorkspaceID: workspaceID, Name: name, Prefix: prefix, Hash: hash}, token, nil
}

func (h *handlers) createWorkspace(c echo.Context) error {
	var req workspaceCreateRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	req.Name = strings.TrimSpace(req.Name)
	var chk checks
	checkLen(&chk, "name", req.Name, 1, 200)
	checkLen(&chk, "api_key_name", req.APIKeyName, 0, 200)
	if err := chk.err(); err != nil {
		return err
	}
	if req.APIKeyName == "" {
		req.APIKeyName = "default"
	}
	key, token, err := newKeyRow(0, req.APIKeyName)
	if err != nil {
		return err
	}
	ws := store.Workspace{Name: req.Name}
	if err := store.CreateWorkspace(c.Request().Context(), h.DB, &ws, &key); err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, struct {
		Workspace workspaceResponse     `json:"workspace"`
		APIKey    apiKeyCreatedResponse `json:"api_key"`
	}{toWorkspaceResponse(ws), toAPIKeyCreatedResponse(key, token)})
}

// createKey creates a key in workspaceID from the request body.
func (h *handlers) createKey(c echo.Context, workspaceID int64) error {
	var req apiKeyCreateRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	var chk checks
	checkLen(&chk, "name", req.Name, 0, 200)
	if err := chk.err(); err != nil {
		return err
	}
	key, token, err := newKeyRow(workspaceID, req.Name)
	if err != nil {
		return err
	}
	if err := store.CreateAPIKey(c.Request().Context(), h.DB, &key); err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, toAPIKeyCreatedResponse(key, token))
}

func (h *handlers) createWorkspaceAPIKey(c echo.Context) error {
	id, err := pathID(c, "workspace_id")
	if err != nil {
		return err
	}
	if _, err := store.GetWorkspace(c.Request().Context(), h.DB, id); err != nil {
		return err
	}
	return h.createKey(c, id)
}

func (h *handlers) getWorkspace(c echo.Context) error {
	ws, err := store.GetWorkspace(c.Request().Context(), h.DB, workspaceID(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toWorkspaceResponse(ws))
}

func (h *handlers) listAPIKeys(c echo.Context) error {
	var chk checks
	p := parsePage(c, &chk)
	if err := chk.err(); err != nil {
		return err
	}
	keys, err := store.ListAPIKeys(c.Request().Context(), h.DB, workspaceID(c), p.idPage(), p.Limit+1)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, pageOf(keys, p.Limit, func(k store.APIKey) cursor { return cursor{ID: k.ID} }, toAPIKeyResponse))
}

func (h *handlers) createAPIKey(c echo.Context) error {
	return h.createKey(c, workspaceID(c))
}

func (h *handlers) revokeAPIKey(c echo.Context) error {
	id, err := pathID(c, "api_key_id")
	if err != nil {
		return err
	}
	if err := store.RevokeAPIKey(c.Request().Context(), h.DB, workspaceID(c), id, h.Now()); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
