package api

import (
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/rebound-hq/rebound/internal/classify"
	"github.com/rebound-hq/rebound/internal/codes"
	"github.com/rebound-hq/rebound/internal/dsn"
)

type codeSourceJSON struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

type codeEntryResponse struct {
	ID             string           `json:"id"`
	Code           string           `json:"code"`
	Provider       string           `json:"provider"`
	ProviderName   string           `json:"provider_name"`
	ReplyCode      string           `json:"reply_code"`
	EnhancedCode   string           `json:"enhanced_code"`
	ReplyText      string           `json:"reply_text"`
	Title          string           `json:"title"`
	Outcome        string           `json:"outcome"`
	Class          string           `json:"class"`
	WhoActs        string           `json:"who_acts"`
	WhoActsText    string           `json:"who_acts_text"`
	Meaning        string           `json:"meaning"`
	Causes         []string         `json:"causes"`
	Fixes          []string         `json:"fixes"`
	KeepAddress    bool             `json:"keep_address"`
	KeepAddressWhy string           `json:"keep_address_why"`
	Reason         string           `json:"reason"`
	Label          string           `json:"label"`
	Related        []string         `json:"related"`
	Sources        []codeSourceJSON `json:"sources"`
	Reviewed       string           `json:"reviewed"`
}

// toCodeEntryResponse converts a knowledge-base entry; nil gives nil.
func toCodeEntryResponse(e *codes.Entry) *codeEntryResponse {
	if e == nil {
		return nil
	}
	r := &codeEntryResponse{ID: e.ID, Code: e.Code(), Provider: e.Provider, ProviderName: e.ProviderName,
		ReplyCode: e.ReplyCode, EnhancedCode: e.EnhancedCode, ReplyText: e.ReplyText, Title: e.Title,
		Outcome: e.Outcome, Class: e.Class, WhoActs: e.WhoActs, WhoActsText: codes.WhoActsText(e.WhoActs),
		Meaning: e.Meaning, Causes: nonNil(e.Causes), Fixes: nonNil(e.Fixes), KeepAddress: e.KeepAddress,
		KeepAddressWhy: e.KeepAddressWhy, Reason: e.Reason, Label: e.Label, Related: nonNil(e.Related),
		Sources: []codeSourceJSON{}, Reviewed: e.Reviewed}
	for _, s := range e.Sources {
		r.Sources = append(r.Sources, codeSourceJSON{Name: s.Name, URL: s.URL})
	}
	return r
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (h *handlers) listCodes(c echo.Context) error {
	var chk checks
	p := parsePage(c, &chk)
	f := codes.Filter{
		Provider: queryString(c, &chk, "provider", 64),
		Class:    queryEnum(c, &chk, "class", "soft", "hard"),
		Label:    queryString(c, &chk, "label", 100),
		Q:        queryString(c, &chk, "q", 500),
	}
	if err := chk.err(); err != nil {
		return err
	}
	all := codes.List(f)
	// The knowledge base is fixed at build time: the cursor is the
	// position (1-based) of the last entry of the previous page.
	start := 0
	if p.After != nil {
		start = int(min(p.After.ID, int64(len(all))))
	}
	end := min(start+p.Limit+1, len(all))
	type pos struct {
		n int
		e *codes.Entry
	}
	rows := make([]pos, 0, end-start)
	for i := start; i < end; i++ {
		rows = append(rows, pos{i + 1, all[i]})
	}
	return c.JSON(http.StatusOK, pageOf(rows, p.Limit, func(r pos) cursor { return cursor{ID: int64(r.n)} },
		func(r pos) codeEntryResponse { return *toCodeEntryResponse(r.e) }))
}

func (h *handlers) getCode(c echo.Context) error {
	code := c.Param("code")
	var chk checks
	provider := queryString(c, &chk, "provider", 64)
	if err := chk.err(); err != nil {
		return err
	}
	m, ok := codes.Lookup(code, provider)
	if !ok {
		if _, valid := codes.WithCode(code); !valid {
			return invalidField("path", "code", "must be a reply code (550), an enhanced code (5.1.1) or both joined by a hyphen (550-5.1.1)")
		}
		return notFound("code")
	}
	others := []codeEntryResponse{}
	if all, ok := codes.WithCode(code); ok {
		for _, e := range all {
			if e != m.Entry {
				others = append(others, *toCodeEntryResponse(e))
			}
		}
	}
	return c.JSON(http.StatusOK, struct {
		Entry  *codeEntryResponse  `json:"entry"`
		Others []codeEntryResponse `json:"others"`
	}{toCodeEntryResponse(m.Entry), others})
}

type verdictJSON struct {
	Class          *string `json:"class"`
	Reason         string  `json:"reason"`
	Label          string  `json:"label"`
	AddressInvalid bool    `json:"address_invalid"`
}

type originalJSON struct {
	MessageID string            `json:"message_id"`
	From      string            `json:"from"`
	To        string            `json:"to"`
	Subject   string            `json:"subject"`
	Date      string            `json:"date"`
	XHeaders  map[string]string `json:"x_headers"`
}

type decodedResultResponse struct {
	Kind              string             `json:"kind"`
	Recipient         string             `json:"recipient"`
	OriginalRecipient string             `json:"original_recipient"`
	Action            string             `json:"action"`
	Status            string             `json:"status"`
	ReplyCode         string             `json:"reply_code"`
	Diagnostic        string             `json:"diagnostic"`
	RemoteMTA         string             `json:"remote_mta"`
	ReportingMTA      string             `json:"reporting_mta"`
	Provider          string             `json:"provider"`
	Format            string             `json:"format"`
	FeedbackType      string             `json:"feedback_type"`
	ArrivalDate       *time.Time         `json:"arrival_date"`
	LastAttemptDate   *time.Time         `json:"last_attempt_date"`
	WillRetryUntil    *time.Time         `json:"will_retry_until"`
	Original          originalJSON       `json:"original"`
	Verdict           verdictJSON        `json:"verdict"`
	Explanation       *codeEntryResponse `json:"explanation"`
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// toDecodedResultResponse converts one decoded result with its verdict and
// explanation.
func toDecodedResultResponse(r dsn.Result) decodedResultResponse {
	v := classify.Classify(r)
	var class *string
	if v.Class != "" {
		cl := v.Class
		class = &cl
	}
	var expl *codeEntryResponse
	if e, ok := codes.ForResult(r.Status, r.ReplyCode, r.Diagnostic, string(r.Provider)); ok {
		expl = toCodeEntryResponse(e)
	}
	x := r.Original.XHeaders
	if x == nil {
		x = map[string]string{}
	}
	return decodedResultResponse{Kind: string(r.Kind), Recipient: r.Recipient, OriginalRecipient: r.OriginalRecipient,
		Action: r.Action, Status: r.Status, ReplyCode: r.ReplyCode, Diagnostic: r.Diagnostic,
		RemoteMTA: r.RemoteMTA, ReportingMTA: r.ReportingMTA, Provider: string(r.Provider), Format: r.Format,
		FeedbackType: r.FeedbackType, ArrivalDate: timePtr(r.ArrivalDate), LastAttemptDate: timePtr(r.LastAttemptDate),
		WillRetryUntil: timePtr(r.WillRetryUntil),
		Original: originalJSON{MessageID: r.Original.MessageID, From: r.Original.From, To: r.Original.To,
			Subject: r.Original.Subject, Date: r.Original.Date, XHeaders: x},
		Verdict:     verdictJSON{Class: class, Reason: v.Reason, Label: v.Label, AddressInvalid: v.AddressInvalid},
		Explanation: expl}
}

type decodeResponse struct {
	Input       string                  `json:"input"`
	Results     []decodedResultResponse `json:"results"`
	Error       string                  `json:"error"`
	Explanation *codeEntryResponse      `json:"explanation"`
}

// looksLikeMessage reports whether body starts with a header section
// ("Name: value" lines up to a blank line).
func looksLikeMessage(body []byte) bool {
	end := len(body)
	if end > 4096 {
		end = 4096
	}
	head := strings.ReplaceAll(string(body[:end]), "\r\n", "\n")
	first, _, _ := strings.Cut(head, "\n")
	name, _, ok := strings.Cut(first, ":")
	return ok && name != "" && !strings.ContainsAny(name, " \t") && strings.Contains(head, "\n\n")
}

// decode decodes a raw message or pasted bounce text; it stores nothing.
func (h *handlers) decode(c echo.Context) error {
	mt := mediaType(c)
	if mt != "message/rfc822" && mt != "text/plain" {
		return errorf(CodeUnsupportedMedia, "the body must be message/rfc822 (a whole message) or text/plain (pasted bounce text)")
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return invalidField("body", "body", "is empty")
	}
	resp := decodeResponse{Input: "text", Results: []decodedResultResponse{}}
	if mt == "message/rfc822" || looksLikeMessage(body) {
		resp.Input = "message"
		results, derr := dsn.Decode(body)
		for _, r := range results {
			resp.Results = append(resp.Results, toDecodedResultResponse(r))
		}
		if derr != nil && len(results) == 0 {
			resp.Error = derr.Error()
		}
	}
	if len(resp.Results) == 0 {
		// Pasted text, or a message that decodes to nothing: explain the
		// reply it quotes.
		text := string(body)
		if !utf8.ValidString(text) {
			text = strings.ToValidUTF8(text, "\uFFFD")
		}
		if m, ok := codes.Explain(text, ""); ok {
			resp.Explanation = toCodeEntryResponse(m.Entry)
			resp.Error = ""
		} else if resp.Error == "" {
			resp.Error = "no bounce and no reply code found in the text"
		}
	}
	return c.JSON(http.StatusOK, resp)
}
