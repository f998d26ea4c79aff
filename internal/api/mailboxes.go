package api

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rebound-hq/rebound/internal/mailbox"
	"github.com/rebound-hq/rebound/internal/tasks"
)

// mailboxTestTimeout bounds a connection test.
const mailboxTestTimeout = 30 * time.Second

type oauth2JSON struct {
	ClientID string   `json:"client_id"`
	TokenURL string   `json:"token_url"`
	Scopes   []string `json:"scopes,omitempty"`
}

type mailboxResponse struct {
	ID                  int64       `json:"id"`
	Name                string      `json:"name"`
	Host                string      `json:"host"`
	Port                int         `json:"port"`
	TLS                 string      `json:"tls"`
	Username            string      `json:"username"`
	Auth                string      `json:"auth"`
	Mechanism           string      `json:"mechanism,omitempty"`
	OAuth2              *oauth2JSON `json:"oauth2"`
	Folders             []string    `json:"folders"`
	LookbackDays        int         `json:"lookback_days"`
	SyncIntervalSeconds int         `json:"sync_interval_seconds"`
	ProcessedAction     string      `json:"processed_action"`
	ProcessedTarget     string      `json:"processed_target"`
	Status              string      `json:"status"`
	LastSyncAt          *time.Time  `json:"last_sync_at"`
	LastError           string      `json:"last_error"`
	ConsecutiveFailures int         `json:"consecutive_failures"`
	NextSyncAt          *time.Time  `json:"next_sync_at"`
	MessagesSeen        int64       `json:"messages_seen"`
	BouncesRecorded     int64       `json:"bounces_recorded"`
	CreatedAt           time.Time   `json:"created_at"`
	UpdatedAt           time.Time   `json:"updated_at"`
}

// toMailboxResponse converts a mailbox view; it holds no secret.
func toMailboxResponse(v mailbox.View) mailboxResponse {
	s := v.Settings
	r := mailboxResponse{ID: v.ID, Name: v.Name, Host: s.Host, Port: s.Port, TLS: string(s.TLS),
		Username: s.Username, Auth: string(s.Auth), Mechanism: s.Mechanism, Folders: s.Folders,
		LookbackDays: s.LookbackDays, SyncIntervalSeconds: s.SyncIntervalSeconds,
		ProcessedAction: string(s.ProcessedAction), ProcessedTarget: s.ProcessedTarget,
		Status: v.Status, LastSyncAt: v.LastSyncAt, LastError: v.LastError,
		ConsecutiveFailures: v.ConsecutiveFailures, NextSyncAt: v.NextSyncAt,
		MessagesSeen: v.MessagesSeen, BouncesRecorded: v.BouncesRecorded,
		CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt}
	if r.Folders == nil {
		r.Folders = []string{}
	}
	if r.ProcessedAction == "" {
		r.ProcessedAction = string(mailbox.ProcessedNone)
	}
	if s.OAuth2 != nil {
		r.OAuth2 = &oauth2JSON{ClientID: s.OAuth2.ClientID, TokenURL: s.OAuth2.TokenURL, Scopes: s.OAuth2.Scopes}
	}
	return r
}

// mailboxSettingsJSON are the settings fields of a create or patch body.
type mailboxSettingsJSON struct {
	Host                *string     `json:"host"`
	Port                *int        `json:"port"`
	TLS                 *string     `json:"tls"`
	Username            *string     `json:"username"`
	Auth                *string     `json:"auth"`
	Mechanism           *string     `json:"mechanism"`
	OAuth2              *oauth2JSON `json:"oauth2"`
	Folders             *[]string   `json:"folders"`
	LookbackDays        *int        `json:"lookback_days"`
	SyncIntervalSeconds *int        `json:"sync_interval_seconds"`
	ProcessedAction     *string     `json:"processed_action"`
	ProcessedTarget     *string     `json:"processed_target"`
}

// any reports whether any settings field is present.
func (j mailboxSettingsJSON) any() bool {
	return j.Host != nil || j.Port != nil || j.TLS != nil || j.Username != nil || j.Auth != nil ||
		j.Mechanism != nil || j.OAuth2 != nil || j.Folders != nil || j.LookbackDays != nil ||
		j.SyncIntervalSeconds != nil || j.ProcessedAction != nil || j.ProcessedTarget != nil
}

// applyTo sets the present fields on s.
func (j mailboxSettingsJSON) applyTo(s *mailbox.Settings) {
	set := func(dst *string, src *string) {
		if src != nil {
			*dst = *src
		}
	}
	set(&s.Host, j.Host)
	set(&s.Username, j.Username)
	set(&s.Mechanism, j.Mechanism)
	set(&s.ProcessedTarget, j.ProcessedTarget)
	if j.Port != nil {
		s.Port = *j.Port
	}
	if j.TLS != nil {
		s.TLS = mailbox.TLSMode(*j.TLS)
	}
	if j.Auth != nil {
		s.Auth = mailbox.AuthKind(*j.Auth)
	}
	if j.OAuth2 != nil {
		s.OAuth2 = &mailbox.OAuth2Settings{ClientID: j.OAuth2.ClientID, TokenURL: j.OAuth2.TokenURL, Scopes: j.OAuth2.Scopes}
	}
	if j.Folders != nil {
		s.Folders = *j.Folders
	}
	if j.LookbackDays != nil {
		s.LookbackDays = *j.LookbackDays
	}
	if j.SyncIntervalSeconds != nil {
		s.SyncIntervalSeconds = *j.SyncIntervalSeconds
	}
	if j.ProcessedAction != nil {
		s.ProcessedAction = mailbox.ProcessedAction(*j.ProcessedAction)
	}
}

type credentialsJSON struct {
	Password     string `json:"password"`
	ClientSecret string `json:"client_secret"`
	RefreshToken string `json:"refresh_token"`
}

type mailboxCreateRequest struct {
	Name string `json:"name"`
	mailboxSettingsJSON
	Credentials *credentialsJSON `json:"credentials"`
	Status      *string          `json:"status"`
}

type mailboxPatchRequest struct {
	Name *string `json:"name"`
	mailboxSettingsJSON
	Credentials *credentialsJSON `json:"credentials"`
	Status      *string          `json:"status"`
}

// mailboxes returns the mailbox service, or an unavailable error when the
// process was started without one.
func (h *handlers) mailboxes() (*mailbox.Service, error) {
	if h.Mailboxes == nil {
		return nil, errorf(CodeUnavailable, "mailbox operations are not configured on this server")
	}
	return h.Mailboxes, nil
}

// mailboxByPath returns the mailbox service and the positive ID in the
// mailbox_id path parameter, or the error of either.
func (h *handlers) mailboxByPath(c echo.Context) (*mailbox.Service, int64, error) {
	id, err := pathID(c, "mailbox_id")
	if err != nil {
		return nil, 0, err
	}
	svc, err := h.mailboxes()
	if err != nil {
		return nil, 0, err
	}
	return svc, id, nil
}

func (h *handlers) listMailboxes(c echo.Context) error {
	var chk checks
	p := parsePage(c, &chk)
	status := queryEnum(c, &chk, "status", "active", "paused", "auth_error", "error")
	if err := chk.err(); err != nil {
		return err
	}
	svc, err := h.mailboxes()
	if err != nil {
		return err
	}
	// A workspace has few mailboxes: the service lists them all and the
	// page is cut here, in the same (ID DESC) order as every list.
	all, err := svc.List(c.Request().Context(), workspaceID(c))
	if err != nil {
		return err
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID > all[j].ID })
	var rows []mailbox.View
	for _, v := range all {
		if (p.After == nil || v.ID < p.After.ID) && (status == "" || v.Status == status) {
			rows = append(rows, v)
		}
		if len(rows) > p.Limit {
			break
		}
	}
	return c.JSON(http.StatusOK, pageOf(rows, p.Limit, func(v mailbox.View) cursor { return cursor{ID: v.ID} }, toMailboxResponse))
}

func (h *handlers) createMailbox(c echo.Context) error {
	var req mailboxCreateRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	var chk checks
	checkLen(&chk, "name", req.Name, 0, 200)
	chk.check(req.Host != nil, "body", "host", "is required")
	chk.check(req.Username != nil, "body", "username", "is required")
	chk.check(req.Credentials != nil, "body", "credentials", "is required")
	if req.Status != nil {
		chk.check(oneOf(*req.Status, "active", "paused"), "body", "status", "must be active or paused")
	}
	if err := chk.err(); err != nil {
		return err
	}
	svc, err := h.mailboxes()
	if err != nil {
		return err
	}
	in := mailbox.Input{Name: strings.TrimSpace(req.Name), Paused: req.Status != nil && *req.Status == "paused"}
	req.mailboxSettingsJSON.applyTo(&in.Settings)
	in.Credentials = mailbox.Credentials(*req.Credentials)
	v, err := svc.Create(c.Request().Context(), workspaceID(c), in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, toMailboxResponse(*v))
}

func (h *handlers) getMailbox(c echo.Context) error {
	svc, id, err := h.mailboxByPath(c)
	if err != nil {
		return err
	}
	v, err := svc.Get(c.Request().Context(), workspaceID(c), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toMailboxResponse(*v))
}

func (h *handlers) updateMailbox(c echo.Context) error {
	id, err := pathID(c, "mailbox_id")
	if err != nil {
		return err
	}
	var req mailboxPatchRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	var chk checks
	if req.Name != nil {
		checkLen(&chk, "name", *req.Name, 0, 200)
	}
	if req.Status != nil {
		chk.check(oneOf(*req.Status, "active", "paused"), "body", "status", "must be active or paused")
	}
	if err := chk.err(); err != nil {
		return err
	}
	svc, err := h.mailboxes()
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	var p mailbox.Patch
	if req.Name != nil {
		name := strings.TrimSpace(*req.Name)
		p.Name = &name
	}
	if req.mailboxSettingsJSON.any() {
		cur, err := svc.Get(ctx, workspaceID(c), id)
		if err != nil {
			return err
		}
		st := cur.Settings
		req.mailboxSettingsJSON.applyTo(&st)
		p.Settings = &st
	}
	if req.Credentials != nil {
		cr := mailbox.Credentials(*req.Credentials)
		p.Credentials = &cr
	}
	if req.Status != nil {
		paused := *req.Status == "paused"
		p.Paused = &paused
	}
	v, err := svc.Update(ctx, workspaceID(c), id, p)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toMailboxResponse(*v))
}

func (h *handlers) deleteMailbox(c echo.Context) error {
	svc, id, err := h.mailboxByPath(c)
	if err != nil {
		return err
	}
	if err := svc.Delete(c.Request().Context(), workspaceID(c), id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

type mailboxTestResponse struct {
	OK         bool   `json:"ok"`
	Error      string `json:"error"`
	AuthFailed bool   `json:"auth_failed"`
}

func (h *handlers) testMailbox(c echo.Context) error {
	svc, id, err := h.mailboxByPath(c)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(c.Request().Context(), mailboxTestTimeout)
	defer cancel()
	// The mailbox must exist in this workspace: that is a 404, not a
	// failed test.
	if _, err := svc.Get(ctx, workspaceID(c), id); err != nil {
		return err
	}
	err = svc.TestMailbox(ctx, workspaceID(c), id)
	if err == nil {
		return c.JSON(http.StatusOK, mailboxTestResponse{OK: true})
	}
	if mailbox.IsNotFound(err) {
		return err
	}
	return c.JSON(http.StatusOK, mailboxTestResponse{Error: testFailure(err), AuthFailed: errors.Is(err, mailbox.ErrAuth)})
}

// testFailure words a failed connection test for the customer. The
// mailbox package's errors name the failed step and the server's answer
// and carry no secret.
func testFailure(err error) string {
	var ve *mailbox.ValidationError
	switch {
	case errors.As(err, &ve):
		return ve.Error()
	case errors.Is(err, context.DeadlineExceeded):
		return "mailbox: the server did not answer within " + mailboxTestTimeout.String()
	}
	return err.Error()
}

type syncQueuedResponse struct {
	MailboxID int64 `json:"mailbox_id"`
	Queued    bool  `json:"queued"`
}

func (h *handlers) syncMailbox(c echo.Context) error {
	svc, id, err := h.mailboxByPath(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if _, err := svc.Get(ctx, workspaceID(c), id); err != nil {
		return err
	}
	if h.Queue == nil {
		return errorf(CodeUnavailable, "the task queue is not configured on this server")
	}
	queued, err := tasks.EnqueueSync(ctx, h.Queue, id)
	if err != nil {
		return &Error{Code: CodeUnavailable, Detail: "the sync could not be queued; try again", Err: err}
	}
	return c.JSON(http.StatusAccepted, syncQueuedResponse{MailboxID: id, Queued: queued})
}

func init() {
	errorTranslators = append(errorTranslators, func(err error) *Error {
		var ve *mailbox.ValidationError
		switch {
		case errors.As(err, &ve):
			// ve.Field is the Settings JSON name, the same in the body.
			return fieldError(CodeInvalid, "body", ve.Field, ve.Reason, err)
		case errors.Is(err, mailbox.ErrPrivateHost):
			return fieldError(CodeInvalid, "body", "host", "resolves to a non-public address", err)
		}
		return nil
	})
}
