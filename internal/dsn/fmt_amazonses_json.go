package dsn

import (
	"encoding/json"
	"strings"
)

// Amazon SES event notifications delivered by e-mail through Amazon SNS
// ("AWS Notification Message"): the body is the JSON document described at
// https://docs.aws.amazon.com/ses/latest/dg/notification-contents.html with
// notificationType Bounce, Complaint or Delivery (eventType in
// configuration-set events), possibly wrapped in an SNS envelope whose
// "Message" field holds the document as a string.

func init() {
	register(Recogniser{
		Name:  "amazonses-json",
		Order: 20,
		Detect: func(m *message) bool {
			if m.textPart == nil {
				return false
			}
			t := m.lowerText()
			// eventType documents may sit inside an SNS envelope, their
			// quotes escaped (\"eventType\").
			return strings.Contains(t, `notificationtype`) && strings.Contains(t, "{") ||
				strings.Contains(t, `eventtype`) && strings.Contains(t, `mail`) && strings.Contains(t, "{")
		},
		Parse: parseSESJSON,
	})
}

type sesMail struct {
	MessageID     string `json:"messageId"`
	Source        string `json:"source"`
	CommonHeaders struct {
		From      []string `json:"from"`
		To        []string `json:"to"`
		Subject   string   `json:"subject"`
		MessageID string   `json:"messageId"`
		Date      string   `json:"date"`
	} `json:"commonHeaders"`
	Headers []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"headers"`
}

type sesNotification struct {
	NotificationType string `json:"notificationType"`
	EventType        string `json:"eventType"`
	Bounce           *struct {
		BounceType        string `json:"bounceType"`
		BounceSubType     string `json:"bounceSubType"`
		ReportingMTA      string `json:"reportingMTA"`
		RemoteMtaIP       string `json:"remoteMtaIp"`
		BouncedRecipients []struct {
			EmailAddress   string `json:"emailAddress"`
			Action         string `json:"action"`
			Status         string `json:"status"`
			DiagnosticCode string `json:"diagnosticCode"`
		} `json:"bouncedRecipients"`
	} `json:"bounce"`
	Complaint *struct {
		ComplaintFeedbackType string `json:"complaintFeedbackType"`
		ComplainedRecipients  []struct {
			EmailAddress string `json:"emailAddress"`
		} `json:"complainedRecipients"`
	} `json:"complaint"`
	Delivery *struct {
		Recipients   []string `json:"recipients"`
		SMTPResponse string   `json:"smtpResponse"`
		ReportingMTA string   `json:"reportingMTA"`
		RemoteMtaIP  string   `json:"remoteMtaIp"`
	} `json:"delivery"`
	Mail sesMail `json:"mail"`
	// Message holds the notification when wrapped in an SNS envelope.
	Message string `json:"Message"`
}

// parseSESJSON decodes the JSON notification in the body.
func parseSESJSON(m *message) ([]Result, error) {
	t := m.bodyText()
	// The document (or its SNS envelope) is the first JSON object of the body.
	start := strings.IndexByte(t, '{')
	if start < 0 {
		return nil, nil
	}
	var n sesNotification
	dec := json.NewDecoder(strings.NewReader(joinJSONLines(t[start:])))
	if err := dec.Decode(&n); err != nil {
		return nil, nil
	}
	if n.Message != "" && n.Bounce == nil && n.Complaint == nil && n.Delivery == nil {
		var inner sesNotification
		if err := json.Unmarshal([]byte(n.Message), &inner); err == nil {
			n = inner
		}
	}
	orig := sesOriginal(&n.Mail)
	typ := n.NotificationType
	if typ == "" {
		typ = n.EventType
	}
	var res []Result
	switch {
	case strings.EqualFold(typ, "Bounce") && n.Bounce != nil:
		for _, r := range n.Bounce.BouncedRecipients {
			dt, diag := splitTyped(r.DiagnosticCode)
			kind := KindBounce
			st := r.Status
			if st == "" && strings.EqualFold(n.Bounce.BounceType, "Transient") {
				st = "4.0.0"
			}
			res = append(res, Result{
				Kind: kind, Recipient: r.EmailAddress, Action: lowerASCII(r.Action), Status: st,
				Diagnostic: diag, DiagnosticType: lowerASCII(dt), ReportingMTA: typedValue(n.Bounce.ReportingMTA),
				RemoteMTA: n.Bounce.RemoteMtaIP, Original: orig, Hint: sesSubTypes[lowerASCII(n.Bounce.BounceSubType)],
			})
		}
	case strings.EqualFold(typ, "Complaint") && n.Complaint != nil:
		ft := n.Complaint.ComplaintFeedbackType
		if ft == "" {
			ft = "abuse"
		}
		for _, r := range n.Complaint.ComplainedRecipients {
			res = append(res, Result{Kind: KindComplaint, Recipient: r.EmailAddress, FeedbackType: lowerASCII(ft), Original: orig})
		}
	case strings.EqualFold(typ, "Delivery") && n.Delivery != nil:
		for _, a := range n.Delivery.Recipients {
			res = append(res, Result{
				Kind: KindDelivered, Recipient: a, Action: "delivered", Diagnostic: n.Delivery.SMTPResponse,
				DiagnosticType: "smtp", ReportingMTA: n.Delivery.ReportingMTA, RemoteMTA: n.Delivery.RemoteMtaIP, Original: orig,
			})
		}
	}
	return res, nil
}

// joinJSONLines undoes the line breaks a mail system may insert into a long
// JSON line (a break inside a string is not valid JSON).
func joinJSONLines(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	end := strings.Index(s, "\n--")
	if end > 0 {
		s = s[:end]
	}
	s = strings.ReplaceAll(s, "\n ", "")
	return strings.ReplaceAll(s, "\n", "")
}

// sesOriginal builds the Original from the notification's mail object.
func sesOriginal(ml *sesMail) Original {
	o := Original{MessageID: strings.Trim(ml.CommonHeaders.MessageID, "<>"), Subject: ml.CommonHeaders.Subject, Date: ml.CommonHeaders.Date}
	if len(ml.CommonHeaders.From) > 0 {
		o.From = ml.CommonHeaders.From[0]
	}
	o.To = strings.Join(ml.CommonHeaders.To, ", ")
	for _, h := range ml.Headers {
		name := lowerASCII(h.Name)
		switch {
		case name == "message-id" && o.MessageID == "":
			o.MessageID = strings.Trim(h.Value, "<> ")
		case strings.HasPrefix(name, "x-"):
			if o.XHeaders == nil {
				o.XHeaders = map[string]string{}
			}
			o.XHeaders[canonicalKey(name)] = h.Value
		}
	}
	return o
}

// sesSubTypes maps Amazon SES bounce sub-types (Amazon SES Developer Guide,
// "Amazon SNS notification contents", bounce types) to a hint. "General"
// and "Undetermined" say nothing; "Suppressed" means an earlier hard bounce
// put the address on SES's global suppression list, so SES did not try it.
// "OnAccountSuppressionList" is left out: an account's own list also holds
// addresses suppressed for complaints.
var sesSubTypes = map[string]string{
	"noemail":            "userunknown",
	"suppressed":         "userunknown",
	"mailboxfull":        "mailboxfull",
	"messagetoolarge":    "mesgtoobig",
	"contentrejected":    "contenterror",
	"attachmentrejected": "contenterror",
}
