package api

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// authKind says which credential a route takes.
type authKind int

const (
	authNone     authKind = iota // public: spec, metrics, health
	authKey                      // a workspace API key (Bearer rbk_...)
	authOperator                 // the operator token (OPERATOR_TOKEN)
)

// route is one row of the route table. Path uses OpenAPI's {param} syntax,
// exactly as openapi.yaml spells it (a test compares the two).
type route struct {
	method    string
	path      string
	auth      authKind
	bodyLimit int64 // bytes; 0 means defaultBodyLimit
	handler   func(h *handlers, c echo.Context) error
}

// routes is the one table of every route the API serves.
func routes() []route {
	return []route{
		{http.MethodGet, "/openapi.yaml", authNone, 0, (*handlers).getOpenAPI},
		{http.MethodGet, "/metrics", authNone, 0, (*handlers).getMetrics},

		{http.MethodPost, "/v1/workspaces", authOperator, 0, (*handlers).createWorkspace},
		{http.MethodPost, "/v1/workspaces/{workspace_id}/api-keys", authOperator, 0, (*handlers).createWorkspaceAPIKey},
		{http.MethodGet, "/v1/workspace", authKey, 0, (*handlers).getWorkspace},
		{http.MethodGet, "/v1/api-keys", authKey, 0, (*handlers).listAPIKeys},
		{http.MethodPost, "/v1/api-keys", authKey, 0, (*handlers).createAPIKey},
		{http.MethodDelete, "/v1/api-keys/{api_key_id}", authKey, 0, (*handlers).revokeAPIKey},

		{http.MethodGet, "/v1/mailboxes", authKey, 0, (*handlers).listMailboxes},
		{http.MethodPost, "/v1/mailboxes", authKey, 0, (*handlers).createMailbox},
		{http.MethodGet, "/v1/mailboxes/{mailbox_id}", authKey, 0, (*handlers).getMailbox},
		{http.MethodPatch, "/v1/mailboxes/{mailbox_id}", authKey, 0, (*handlers).updateMailbox},
		{http.MethodDelete, "/v1/mailboxes/{mailbox_id}", authKey, 0, (*handlers).deleteMailbox},
		{http.MethodPost, "/v1/mailboxes/{mailbox_id}/test", authKey, 0, (*handlers).testMailbox},
		{http.MethodPost, "/v1/mailboxes/{mailbox_id}/sync", authKey, 0, (*handlers).syncMailbox},

		{http.MethodGet, "/v1/campaigns", authKey, 0, (*handlers).listCampaigns},
		{http.MethodPost, "/v1/campaigns", authKey, 0, (*handlers).createCampaign},
		{http.MethodGet, "/v1/campaigns/{campaign_id}", authKey, 0, (*handlers).getCampaign},
		{http.MethodPatch, "/v1/campaigns/{campaign_id}", authKey, 0, (*handlers).updateCampaign},
		{http.MethodDelete, "/v1/campaigns/{campaign_id}", authKey, 0, (*handlers).deleteCampaign},

		{http.MethodGet, "/v1/leads", authKey, 0, (*handlers).listLeads},
		{http.MethodPost, "/v1/leads", authKey, 0, (*handlers).createLead},
		{http.MethodPost, "/v1/leads/import", authKey, bulkBodyLimit, (*handlers).importLeads},
		{http.MethodGet, "/v1/leads/{lead_id}", authKey, 0, (*handlers).getLead},
		{http.MethodPatch, "/v1/leads/{lead_id}", authKey, 0, (*handlers).updateLead},
		{http.MethodDelete, "/v1/leads/{lead_id}", authKey, 0, (*handlers).deleteLead},
		{http.MethodGet, "/v1/leads/{lead_id}/activities", authKey, 0, (*handlers).listLeadActivities},

		{http.MethodGet, "/v1/sent-messages", authKey, 0, (*handlers).listSentMessages},
		{http.MethodPost, "/v1/sent-messages", authKey, 0, (*handlers).createSentMessage},
		{http.MethodPost, "/v1/sent-messages/bulk", authKey, bulkBodyLimit, (*handlers).createSentMessages},
		{http.MethodGet, "/v1/sent-messages/{sent_message_id}", authKey, 0, (*handlers).getSentMessage},

		{http.MethodGet, "/v1/bounces", authKey, 0, (*handlers).listBounces},
		{http.MethodGet, "/v1/bounces/{bounce_id}", authKey, 0, (*handlers).getBounce},
		{http.MethodGet, "/v1/bounces/{bounce_id}/raw", authKey, 0, (*handlers).getBounceRaw},
		{http.MethodGet, "/v1/unmatched-bounces", authKey, 0, (*handlers).listUnmatchedBounces},

		{http.MethodGet, "/v1/suppressions", authKey, 0, (*handlers).listSuppressions},
		{http.MethodPost, "/v1/suppressions", authKey, 0, (*handlers).createSuppression},
		{http.MethodGet, "/v1/suppressions/check", authKey, 0, (*handlers).checkSuppression},
		{http.MethodDelete, "/v1/suppressions/{suppression_id}", authKey, 0, (*handlers).deleteSuppression},

		{http.MethodGet, "/v1/policy", authKey, 0, (*handlers).getPolicy},
		{http.MethodPut, "/v1/policy", authKey, 0, (*handlers).putPolicy},

		{http.MethodGet, "/v1/codes", authKey, 0, (*handlers).listCodes},
		{http.MethodGet, "/v1/codes/{code}", authKey, 0, (*handlers).getCode},
		{http.MethodPost, "/v1/decode", authKey, decodeBodyLimit, (*handlers).decode},

		{http.MethodGet, "/v1/campaigns/{campaign_id}/reports/bounces", authKey, 0, (*handlers).getCampaignBounceReport},
		{http.MethodGet, "/v1/reports/bounces", authKey, 0, (*handlers).getWorkspaceBounceReport},
	}
}

// echoPath turns "/v1/leads/{lead_id}" into Echo's "/v1/leads/:lead_id".
func echoPath(p string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(p, '{')
		if i < 0 {
			b.WriteString(p)
			return b.String()
		}
		j := strings.IndexByte(p[i:], '}')
		b.WriteString(p[:i])
		b.WriteByte(':')
		b.WriteString(p[i+1 : i+j])
		p = p[i+j+1:]
	}
}
