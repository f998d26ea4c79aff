package classify

// phraseRule ties a phrase of diagnostic text to a reason. Phrases are
// written lower case with single spaces; see matcher for the " * " gap and
// the word-boundary spaces.
type phraseRule struct {
	reason string
	phrase string
}

// reasonRank is the precedence of reasons when strong phrases of several
// reasons occur in one diagnostic: the lowest rank wins (after phrases lying
// inside a longer matched phrase have been dropped, see matcher.best). The
// order puts first what the text can only mean one way and what the sender
// most needs to learn:
//
//   - the state of the recipient's mailbox (full, size limits, disabled,
//     moved): a "mailbox full" reply is mailboxfull whatever else it says;
//   - relaying, RFC compliance, authentication, reputation and reverse DNS,
//     which receiving servers often word as a recipient error ("550 5.1.1
//     ... rate limited", "550 5.7.1 ... blocked using Spamhaus");
//   - connection and rate limits, malware, spam and blocklists;
//   - the address itself (unknown user, unknown host, no mail accepted);
//   - recipient filters and sender refusals;
//   - the message's fate (expired), then policy, content, security and
//     syntax refusals, then faults on the way (system full, system, local
//     mailer, network).
//
// reasonUserUnknownDefinite marks userunknown phrases that are a
// provider's own statement that the mailbox does not exist (Gmail "The email
// account that you tried to reach does not exist", Exchange "The recipient
// name is not recognized", Yahoo "dd This user doesn't have a yahoo.com
// account", ...). Unlike the generic "user unknown" wording, they keep
// their reason whatever SMTP command they answered (see byCommand). It ranks
// with userunknown and is reported as userunknown.
const reasonUserUnknownDefinite = "userunknown!"

// reasonHostUnknownDefinite marks hostunknown phrases that report the
// sending MTA's own DNS answer about the recipient's domain (Sendmail's
// "Host unknown (Authoritative answer from name server)"): they concern the
// recipient whatever SMTP exchange of another recipient preceded them in a
// transcript. It ranks with hostunknown and is reported as hostunknown
// (networkerror under a temporary code, see refine).
const reasonHostUnknownDefinite = "hostunknown!"

var reasonRank = func() map[string]int {
	order := []string{
		ReasonMailboxFull, ReasonMesgTooBig, ReasonExceedLimit, ReasonSuspend,
		ReasonHasMoved, ReasonNoRelaying, ReasonNotCompliantRFC,
		ReasonAuthFailure, ReasonBadReputation, ReasonRequirePTR,
		ReasonTooManyConn, ReasonSpeeding, ReasonVirusDetected,
		ReasonSpamDetected, ReasonBlocked,
		ReasonUserUnknown, ReasonHostUnknown, ReasonNotAccept,
		ReasonFiltered, ReasonRejected,
		ReasonExpired, ReasonPolicyViolation, ReasonContentError,
		ReasonFailedSTARTTLS, ReasonSecurityError, ReasonSyntaxError,
		ReasonSystemFull, ReasonSystemError, ReasonMailerError,
		ReasonNetworkError, ReasonOnHold,
		ReasonVacation, ReasonFeedback, ReasonDelivered, ReasonUndefined,
	}
	m := make(map[string]int, len(order)+1)
	for i, r := range order {
		m[r] = i
	}
	m[reasonUserUnknownDefinite] = m[ReasonUserUnknown]
	m[reasonHostUnknownDefinite] = m[ReasonHostUnknown]
	return m
}()

var (
	strongPhrases = newMatcher(strongPhraseTable, reasonRank)
	weakPhrases   = newMatcher(weakPhraseTable, reasonRank)
)

// strongPhraseTable lists phrases that name a cause precisely; they decide
// the reason over any status code. Sources are the reply texts published or
// commonly returned by the MTAs and providers named in the comments (Postfix,
// Sendmail, Exim, qmail, Exchange/Microsoft 365, Gmail/Google Workspace,
// Yahoo, Apple iCloud, Mimecast, Proofpoint, Barracuda, Tencent, Mail.ru,
// Japanese carriers, ...) and the RFC 3463/5321 standard texts, in English
// and in the languages those servers answer in.
var strongPhraseTable = []phraseRule{
	// ---- mailboxfull: the recipient's mailbox is over quota
	{ReasonMailboxFull, "disabled temporarly for exceeding receiving limits"},
	{ReasonMailboxFull, "disabled temporarily for exceeding receiving limits"},
	{ReasonMailboxFull, "not enough storage space"},
	{ReasonMailboxFull, "mailbox full"},
	{ReasonMailboxFull, "mailbox is full"},
	{ReasonMailboxFull, "mailbox * is full"},
	{ReasonMailboxFull, "mailbox is currently full"},
	{ReasonMailboxFull, "mailbox size limit exceeded"}, // Postfix local(8)
	{ReasonMailboxFull, "mailbox exceeds allowed size"},
	{ReasonMailboxFull, "mailbox has exceeded"},
	{ReasonMailboxFull, "mailbox would exceed"},
	{ReasonMailboxFull, "mailbox quota"},
	{ReasonMailboxFull, "mailfolder is full"},
	{ReasonMailboxFull, "full mailbox"},
	{ReasonMailboxFull, "inbox is full"},
	{ReasonMailboxFull, "inbox is out of storage space"}, // Gmail 5.2.2
	{ReasonMailboxFull, "out of storage space"},
	{ReasonMailboxFull, "overquota"}, // Gmail OverQuotaTemp/OverQuotaPerm
	{ReasonMailboxFull, "over quota"},
	{ReasonMailboxFull, "over the quota"},
	{ReasonMailboxFull, "over the allowed quota"},
	{ReasonMailboxFull, "diskspace quota"},
	{ReasonMailboxFull, "does not have enough space"},
	{ReasonMailboxFull, "mailbox exceeded the local limit"},
	{ReasonMailboxFull, "exceeding their quota"},
	{ReasonMailboxFull, "exceeding its quota"},
	{ReasonMailboxFull, "mail file size exceeds the maximum size allowed for mail delivery"},
	{ReasonMailboxFull, "over their allowed quota"},
	{ReasonMailboxFull, "over its quota"},
	{ReasonMailboxFull, "over their quota"},
	{ReasonMailboxFull, "quota exceeded"},
	{ReasonMailboxFull, "quotaexceeded"}, // Exchange MapiExceptionShutoffQuotaExceeded
	{ReasonMailboxFull, "quota * exceeded"},
	{ReasonMailboxFull, "exceeded * quota"},
	{ReasonMailboxFull, "exceeds * quota"},
	{ReasonMailboxFull, "quota violation"},
	{ReasonMailboxFull, "quota full"},
	{ReasonMailboxFull, "disk quota"},
	{ReasonMailboxFull, "storage quota"},
	{ReasonMailboxFull, "exceeded storage allocation"}, // RFC 5321 552 text
	{ReasonMailboxFull, "not sufficient disk space"},
	{ReasonMailboxFull, "user's space has been used up"},
	{ReasonMailboxFull, "user has too many messages"},
	{ReasonMailboxFull, "too many messages in * mailbox"},
	{ReasonMailboxFull, "number of messages in recipient's mailbox exceeded"}, // Biglobe
	{ReasonMailboxFull, "account is full"},
	{ReasonMailboxFull, "account is over"},
	{ReasonMailboxFull, "too much mail data"}, // NTT docomo
	{ReasonMailboxFull, "postfach voll"},
	{ReasonMailboxFull, "postfach ist voll"},
	{ReasonMailboxFull, "speicherplatz * überschritten"},
	{ReasonMailboxFull, "quota überschritten"},
	{ReasonMailboxFull, "boite pleine"},
	{ReasonMailboxFull, "boîte pleine"},
	{ReasonMailboxFull, "boite aux lettres pleine"},
	{ReasonMailboxFull, "boîte aux lettres pleine"},
	{ReasonMailboxFull, "boite du destinataire pleine"}, // La Poste / Orange
	{ReasonMailboxFull, "boîte du destinataire pleine"},
	{ReasonMailboxFull, "quota dépassé"},
	{ReasonMailboxFull, "quota depasse"},
	{ReasonMailboxFull, "buzón lleno"},
	{ReasonMailboxFull, "buzon lleno"},
	{ReasonMailboxFull, "buzón está lleno"},
	{ReasonMailboxFull, "cuota excedida"},
	{ReasonMailboxFull, "caixa postal cheia"},
	{ReasonMailboxFull, "caixa de correio cheia"},
	{ReasonMailboxFull, "caixa de entrada cheia"},
	{ReasonMailboxFull, "cota excedida"},
	{ReasonMailboxFull, "quota excedida"},
	{ReasonMailboxFull, "casella piena"},
	{ReasonMailboxFull, "casella di posta piena"},
	{ReasonMailboxFull, "quota superata"},
	{ReasonMailboxFull, "ящик переполнен"},
	{ReasonMailboxFull, "ящик получателя переполнен"},
	{ReasonMailboxFull, "превышена квота"},
	{ReasonMailboxFull, "превышен размер ящика"},
	{ReasonMailboxFull, "容量超過"},
	{ReasonMailboxFull, "容量オーバー"},
	{ReasonMailboxFull, "メールボックスがいっぱい"},
	{ReasonMailboxFull, "メールボックスの容量"},
	{ReasonMailboxFull, "邮箱已满"},
	{ReasonMailboxFull, "邮箱空间不足"},
	{ReasonMailboxFull, "信箱已满"},
	{ReasonMailboxFull, "郵箱已滿"},
	{ReasonMailboxFull, "file too large"}, // mbox delivery over the file size limit
	{ReasonMailboxFull, "user is over quota"},
	{ReasonMailboxFull, "buzón * lleno"},
	{ReasonMailboxFull, "buzon * lleno"},
	{ReasonMailboxFull, "caixa * cheia"},
	{ReasonMailboxFull, "casella * piena"},
	{ReasonMailboxFull, "boîte * pleine"},
	{ReasonMailboxFull, "boite * pleine"},
	{ReasonMailboxFull, "postfach * voll"},
	{ReasonMailboxFull, "ящик * переполнен"},
	{ReasonMailboxFull, "メールボックスが一杯"},
	{ReasonMailboxFull, "信箱空间不足"},

	// ---- mesgtoobig: the message is larger than the system accepts
	{ReasonMesgTooBig, "message too large"},
	{ReasonMesgTooBig, "message too big"},
	{ReasonMesgTooBig, "message is too large"},
	{ReasonMesgTooBig, "message is too big"},
	{ReasonMesgTooBig, "message size exceeds"},
	{ReasonMesgTooBig, "message size * exceeds"},
	{ReasonMesgTooBig, "message size limit"}, // Gmail 5.3.4 "exceeded Google's message size limits"
	{ReasonMesgTooBig, "exceeds * maximum message size"},
	{ReasonMesgTooBig, "exceeds the maximum size"},
	{ReasonMesgTooBig, "message exceeds maximum size"},
	{ReasonMesgTooBig, "exceeds maximum allowed size"},
	{ReasonMesgTooBig, "exceeds the maximum allowed size"},
	{ReasonMesgTooBig, "exceeds size limit"},
	{ReasonMesgTooBig, "mail size limit exceeded"}, // 1&1 / GMX
	{ReasonMesgTooBig, "size limit exceeded"},
	{ReasonMesgTooBig, "message length exceeds"},
	{ReasonMesgTooBig, "larger than * maximum"},
	{ReasonMesgTooBig, "line limit exceeded"},
	{ReasonMesgTooBig, "message size * too large"},
	{ReasonMesgTooBig, "nachricht zu groß"},
	{ReasonMesgTooBig, "nachricht ist zu groß"},
	{ReasonMesgTooBig, "nachricht zu gross"},
	{ReasonMesgTooBig, "message trop volumineux"},
	{ReasonMesgTooBig, "message trop gros"},
	{ReasonMesgTooBig, "mensaje demasiado grande"},
	{ReasonMesgTooBig, "mensagem muito grande"},
	{ReasonMesgTooBig, "messaggio troppo grande"},
	{ReasonMesgTooBig, "слишком большое"},
	{ReasonMesgTooBig, "размер письма превышает"},
	{ReasonMesgTooBig, "サイズが大きすぎ"},
	{ReasonMesgTooBig, "メールサイズが"},
	{ReasonMesgTooBig, "邮件过大"},
	{ReasonMesgTooBig, "邮件大小超过"},
	{ReasonMesgTooBig, "mailsize limit"}, // NetEase "exceeded mailsize limit"
	{ReasonMesgTooBig, "maximum inbound message size"},
	{ReasonMesgTooBig, "maximum incoming message size"},
	{ReasonMesgTooBig, "max message size exceeded"},
	{ReasonMesgTooBig, "message file too big"}, // Postfix
	{ReasonMesgTooBig, "message size exceeds maximum value"},
	{ReasonMesgTooBig, "size limit"},
	{ReasonMesgTooBig, "taille limite du message atteinte"},

	// ---- exceedlimit: a per-recipient size or count limit
	{ReasonExceedLimit, "recipsizelimit"}, // Exchange RESOLVER.RST.RecipSizeLimit
	{ReasonExceedLimit, "message too large for this recipient"},
	{ReasonExceedLimit, "exceeds limit set by recipient"},
	{ReasonExceedLimit, "length exceeds administrative limit"}, // RFC 3463 X.2.3
	{ReasonExceedLimit, "message header size exceeds limit"},
	{ReasonExceedLimit, "header size exceeds"},

	// ---- suspend: the mailbox exists but is disabled or inactive
	{ReasonSuspend, "invalid/inactive user"},
	{ReasonSuspend, "access denied, banned recipient"}, // Microsoft 365 5.7.505
	{ReasonSuspend, "account disabled"},
	{ReasonSuspend, "account is disabled"},
	{ReasonSuspend, "account has been disabled"},
	{ReasonSuspend, "account that you tried to reach is disabled"}, // Gmail 5.2.1
	{ReasonSuspend, "account that you tried to reach is inactive"},
	{ReasonSuspend, "mailbox disabled"},
	{ReasonSuspend, "mailbox is disabled"},
	{ReasonSuspend, "delivery error: dd * is no longer valid"}, // Yahoo / AOL: a closed account
	{ReasonSuspend, "mailbox has been disabled"},
	{ReasonSuspend, "disabled or discontinued"}, // Yahoo [#102]
	{ReasonSuspend, "account inactive"},
	{ReasonSuspend, "account is inactive"},
	{ReasonSuspend, "inactive account"},
	{ReasonSuspend, "inactive mailbox"},
	{ReasonSuspend, "mailbox inactive"},
	{ReasonSuspend, "mailbox is inactive"},
	{ReasonSuspend, "account suspended"},
	{ReasonSuspend, "account is suspended"},
	{ReasonSuspend, "account has been suspended"},
	{ReasonSuspend, "mailbox suspended"},
	{ReasonSuspend, "mailbox is suspended"},
	{ReasonSuspend, "user suspended"},
	{ReasonSuspend, "suspended account"},
	{ReasonSuspend, "account is frozen"},
	{ReasonSuspend, "account has expired"},
	{ReasonSuspend, "account expired"},
	{ReasonSuspend, "account is expired"},
	{ReasonSuspend, "account is not active"},
	{ReasonSuspend, "due to extended inactivity new mail is not currently being accepted"},
	{ReasonSuspend, "account is locked"},
	{ReasonSuspend, "account locked"},
	{ReasonSuspend, "temporary locked"},
	{ReasonSuspend, "temporarily locked"},
	{ReasonSuspend, "mailbox is locked"},
	{ReasonSuspend, "account is blocked"},
	{ReasonSuspend, "recipient account is blocked"},
	{ReasonSuspend, "user not active"},
	{ReasonSuspend, "not an active"},
	{ReasonSuspend, "compte du destinataire est bloqu"}, // La Poste
	{ReasonSuspend, "compte désactivé"},
	{ReasonSuspend, "compte desactive"},
	{ReasonSuspend, "compte suspendu"},
	{ReasonSuspend, "konto gesperrt"},
	{ReasonSuspend, "postfach gesperrt"},
	{ReasonSuspend, "postfach ist deaktiviert"},
	{ReasonSuspend, "konto deaktiviert"},
	{ReasonSuspend, "cuenta desactivada"},
	{ReasonSuspend, "cuenta suspendida"},
	{ReasonSuspend, "cuenta deshabilitada"},
	{ReasonSuspend, "conta desativada"},
	{ReasonSuspend, "conta suspensa"},
	{ReasonSuspend, "conta bloqueada"},
	{ReasonSuspend, "account disabilitato"},
	{ReasonSuspend, "casella disabilitata"},
	{ReasonSuspend, "ящик заблокирован"},
	{ReasonSuspend, "ящик отключен"},
	{ReasonSuspend, "учетная запись отключена"},
	{ReasonSuspend, "利用停止"},
	{ReasonSuspend, "帐户已停用"},
	{ReasonSuspend, "账户已停用"},
	{ReasonSuspend, "账号已冻结"},
	{ReasonSuspend, "帳戶已停用"},
	{ReasonSuspend, "user is suspended"}, // Tencent QQ
	{ReasonSuspend, "currently suspended"},
	{ReasonSuspend, "has been suspended"},
	{ReasonSuspend, "archived recipient"},
	{ReasonSuspend, "destinataire archivee"},
	{ReasonSuspend, "destinataire archivée"},
	{ReasonSuspend, "deactivated mailbox"}, // Tencent QQ
	{ReasonSuspend, "account deactivated"},
	{ReasonSuspend, "mailbox deactivated"},
	{ReasonSuspend, "account has been deactivated"},
	{ReasonSuspend, "mailbox has been deactivated"},
	{ReasonSuspend, "user is terminated"},
	{ReasonSuspend, "mailbox is frozen"},
	{ReasonSuspend, "temporarily inactive"},
	{ReasonSuspend, "recipient suspend the service"},
	{ReasonSuspend, "no longer accepts mail"},
	{ReasonSuspend, "user or domain is disabled"},
	{ReasonSuspend, "mailbox unavailable or access denied"},
	{ReasonSuspend, "account has been temporarily suspended"},

	// ---- hasmoved: the recipient moved and the server names the new address
	{ReasonHasMoved, "has moved"},
	{ReasonHasMoved, "mailbox has moved"},
	{ReasonHasMoved, "user not local; please try"}, // RFC 5321 551 text
	{ReasonHasMoved, "no longer on server"},
	{ReasonHasMoved, "has been replaced by"},
	{ReasonHasMoved, "new address is"},
	{ReasonHasMoved, "address has changed"},

	// ---- norelaying: the server refused to relay for us
	{ReasonNoRelaying, "not a gateway"},
	{ReasonNoRelaying, "relaying mail to "},
	{ReasonNoRelaying, "not authorized to send email directly to our servers"}, // Gmail 550 5.7.1: use the provider's relay
	{ReasonNoRelaying, "invalid credentials for relay"},                        // Google Workspace SMTP relay 550 5.7.1
	{ReasonNoRelaying, "relay access denied"},                                  // Postfix
	{ReasonNoRelaying, "relaying denied"},                                      // Sendmail
	{ReasonNoRelaying, "relay denied"},
	{ReasonNoRelaying, "relay not permitted"}, // Exim
	{ReasonNoRelaying, "relaying not permitted"},
	{ReasonNoRelaying, "relay not allowed"},
	{ReasonNoRelaying, "relaying not allowed"},
	{ReasonNoRelaying, "relaying is not allowed"},
	{ReasonNoRelaying, "relaying disallowed"},
	{ReasonNoRelaying, "relay is not allowed"},
	{ReasonNoRelaying, "relaying mail to * is not allowed"},
	{ReasonNoRelaying, "relay prohibited"},
	{ReasonNoRelaying, "relaying prohibited"},
	{ReasonNoRelaying, "unable to relay"}, // Exchange 5.7.1
	{ReasonNoRelaying, "we do not relay"},
	{ReasonNoRelaying, "not configured to relay"},
	{ReasonNoRelaying, "not permitted to relay"},
	{ReasonNoRelaying, "no relaying"},
	{ReasonNoRelaying, "relay rejected"},
	{ReasonNoRelaying, "is not a gateway"},
	{ReasonNoRelaying, "email address is not verified"}, // Amazon SES sandbox
	{ReasonNoRelaying, "relais refusé"},
	{ReasonNoRelaying, "relais interdit"},
	{ReasonNoRelaying, "as a relay"},
	{ReasonNoRelaying, "insecure mail relay"},
	{ReasonNoRelaying, "requires authentication when attempting to send to a non-local"}, // MailEnable
	{ReasonNoRelaying, "not allowed to relay"},
	{ReasonNoRelaying, "not an open relay"},
	{ReasonNoRelaying, "not local host"},
	{ReasonNoRelaying, "specified domain is not allowed"},
	{ReasonNoRelaying, "list of allowed rcpthost"}, // qmail "that domain isn't in my list of allowed rcpthosts"
	{ReasonNoRelaying, "we don't handle mail for"},
	{ReasonNoRelaying, "relaying nicht erlaubt"},
	{ReasonNoRelaying, "relay nicht erlaubt"},
	{ReasonNoRelaying, "relay no permitido"},
	{ReasonNoRelaying, "retransmisión no permitida"},
	{ReasonNoRelaying, "relay não permitido"},
	{ReasonNoRelaying, "relay non permesso"},
	{ReasonNoRelaying, "inoltro non consentito"},
	{ReasonNoRelaying, "中継は許可されていません"},
	{ReasonNoRelaying, "不允许中继"},

	// ---- notcompliantrfc: the message breaks RFC 5322
	{ReasonNotCompliantRFC, "must be rfc 5322 section 3.6.2 compliant"},            // Microsoft 365 5.7.512: no valid From
	{ReasonNotCompliantRFC, "missing a valid address in the from: header"},         // Gmail 550 5.7.1
	{ReasonNotCompliantRFC, "multiple addresses in from: header are not accepted"}, // Gmail 550 5.7.1
	{ReasonNotCompliantRFC, "unicode character in a disallowed header"},            // Gmail 550 5.7.1
	{ReasonNotCompliantRFC, "encoded-word syntax is not permitted"},                // Gmail 550 5.7.1
	{ReasonNotCompliantRFC, "mail message is malformed"},                           // Gmail 554 5.6.0
	{ReasonNotCompliantRFC, "not rfc 5322 compliant"},                              // Gmail 5.7.1
	{ReasonNotCompliantRFC, "not rfc5322 compliant"},
	{ReasonNotCompliantRFC, "not rfc compliant"},
	{ReasonNotCompliantRFC, "not compliant with rfc"},
	{ReasonNotCompliantRFC, "rfcmessagenoncompliant"},
	{ReasonNotCompliantRFC, "rfc 5322 specifications"},
	{ReasonNotCompliantRFC, "multiple addresses in from"}, // Gmail
	{ReasonNotCompliantRFC, "multiple from"},
	{ReasonNotCompliantRFC, "duplicate header"}, // Amazon SES
	{ReasonNotCompliantRFC, "multiple subject"},
	{ReasonNotCompliantRFC, "missing a valid message-id"},
	{ReasonNotCompliantRFC, "missing a valid messageid"},
	{ReasonNotCompliantRFC, "bare lf"},
	{ReasonNotCompliantRFC, "bare linefeed"},
	{ReasonNotCompliantRFC, "missing a valid address in from"}, // Gmail 5.7.1
	{ReasonNotCompliantRFC, " multiple * header"},

	// ---- authfailure: SPF, DKIM or DMARC failed
	{ReasonAuthFailure, "because dkim does not pass"},                                          // Gmail 5.7.30
	{ReasonAuthFailure, "spf authentication didn't pass"},                                      // Gmail 4.7.27 (a rate limit because of it)
	{ReasonAuthFailure, "dkim authentication didn't pass"},                                     // Gmail 4.7.30
	{ReasonAuthFailure, "isn't aligned with either the authenticated spf or dkim"},             // Gmail 4.7.32
	{ReasonAuthFailure, "spf record of the sending domain has one or more suspicious entries"}, // Gmail X.7.24
	{ReasonAuthFailure, "because spf does not pass"},                                           // Gmail 5.7.27
	{ReasonAuthFailure, "dmarc policy"},
	{ReasonAuthFailure, "dmarc check"},
	{ReasonAuthFailure, "dmarc verification"},
	{ReasonAuthFailure, "dmarc validation"},
	{ReasonAuthFailure, "dmarc fail"},
	{ReasonAuthFailure, "dmarc reject"},
	{ReasonAuthFailure, "dmarc sender invalid"}, // Mimecast
	{ReasonAuthFailure, "does not pass dmarc"},  // Microsoft 5.7.509
	{ReasonAuthFailure, "failed dmarc"},
	{ReasonAuthFailure, "dkim check"},
	{ReasonAuthFailure, "dkim verification"},
	{ReasonAuthFailure, "dkim validation"},
	{ReasonAuthFailure, "dkim fail"},
	{ReasonAuthFailure, "dkim signature verification"},
	{ReasonAuthFailure, "dkim sender invalid"},
	{ReasonAuthFailure, "failed dkim"},
	{ReasonAuthFailure, "no valid dkim"},
	{ReasonAuthFailure, "dkim signature * not valid"},
	{ReasonAuthFailure, "spf check"},
	{ReasonAuthFailure, "spf validation"},
	{ReasonAuthFailure, "spf fail"},
	{ReasonAuthFailure, "spf softfail"},
	{ReasonAuthFailure, "spf: fail"},
	{ReasonAuthFailure, "spf sender invalid"},
	{ReasonAuthFailure, "failed spf"},
	{ReasonAuthFailure, "fails spf"},
	{ReasonAuthFailure, "bad spf"},
	{ReasonAuthFailure, "spf record * not permit"},
	{ReasonAuthFailure, "not designated"}, // SPF: "... is not a designated sender"
	{ReasonAuthFailure, "sender policy framework"},
	{ReasonAuthFailure, "unauthenticated email"},        // Gmail 5.7.26
	{ReasonAuthFailure, "this mail is unauthenticated"}, // Gmail 5.7.26
	{ReasonAuthFailure, "sender is unauthenticated"},    // Gmail, Yahoo 5.7.9
	{ReasonAuthFailure, "does not have authentication information"},
	{ReasonAuthFailure, "fails to pass authentication"},
	{ReasonAuthFailure, "authentication checks"},
	{ReasonAuthFailure, "requires all senders to authenticate"},
	{ReasonAuthFailure, "must pass either spf or dkim"},
	{ReasonAuthFailure, "not accepted due to domain's"},
	{ReasonAuthFailure, "spf.pobox.com"},
	{ReasonAuthFailure, "required authentication level"},
	{ReasonAuthFailure, "spf settings"},
	{ReasonAuthFailure, "authentication requirements defined for the sender"}, // Microsoft 5.7.515
	{ReasonAuthFailure, "per it's spf record"},
	{ReasonAuthFailure, "per its spf record"},

	// ---- badreputation: low sender reputation
	{ReasonBadReputation, "temporarily deferred due to unexpected volume or user complaints"}, // Yahoo [TSS04] (Yahoo's own hosts: rhost.go)
	{ReasonBadReputation, "a poor email reputation score"},
	{ReasonBadReputation, "ip/domain reputation problems"},
	{ReasonBadReputation, "none/bad reputation"}, // T-Online
	{ReasonBadReputation, "the sending mta's poor reputation"},
	{ReasonBadReputation, "deferred due to excessive volume or user complaints"}, // Yahoo [TS02]
	{ReasonBadReputation, "volume or user complaints"},
	{ReasonBadReputation, "due to user complaints"},
	{ReasonBadReputation, "reputation"},
	{ReasonBadReputation, "poor sending history"},
	{ReasonBadReputation, "unusual rate of unsolicited mail"}, // Gmail 4.7.0/5.7.1
	{ReasonBadReputation, "low sender score"},
	{ReasonBadReputation, "senderscore"},

	// ---- requireptr: no (matching) reverse DNS for the sending IP
	{ReasonRequirePTR, "forward dns entry does not point to the sending ip"}, // Gmail 421/550: PTR without matching forward record
	{ReasonRequirePTR, "reverse dns"},
	{ReasonRequirePTR, "reverse-dns"},
	{ReasonRequirePTR, "reverse lookup"},
	{ReasonRequirePTR, "reverse hostname"},
	{ReasonRequirePTR, "reverse name"},
	{ReasonRequirePTR, "reverse mapping"},
	{ReasonRequirePTR, " rdns "},
	{ReasonRequirePTR, " ptr "},
	{ReasonRequirePTR, "ptr record"},
	{ReasonRequirePTR, "ptr lookup"},
	{ReasonRequirePTR, "ptr-record"},
	{ReasonRequirePTR, "ip name lookup failed"},     // Sendmail
	{ReasonRequirePTR, "cannot find your hostname"}, // Postfix reject_unknown_client_hostname
	{ReasonRequirePTR, "unable to resolve your hostname"},
	{ReasonRequirePTR, "cannot find your reverse hostname"},
	{ReasonRequirePTR, "can't find your hostname"},
	{ReasonRequirePTR, "cannot resolve your hostname"},
	{ReasonRequirePTR, "client host name lookup failed"},
	{ReasonRequirePTR, "hostname lookup failed"},
	{ReasonRequirePTR, "mismatches client ip"},
	{ReasonRequirePTR, "does not match * hostname"},
	{ReasonRequirePTR, "unverifyable sending ip"},
	{ReasonRequirePTR, "unverifiable sending ip"},
	{ReasonRequirePTR, "without a valid sender domain"},
	{ReasonRequirePTR, "unresolvable ip"},
	{ReasonRequirePTR, "invalid hostname"},
	{ReasonRequirePTR, "no reverse"},
	{ReasonRequirePTR, "fcrdns"},
	{ReasonRequirePTR, "cannot resolve your address"},
	{ReasonRequirePTR, "unresolvable relay host name"},

	// ---- toomanyconn: too many connections or transactions
	{ReasonTooManyConn, "too many connections"},               // Postfix anvil
	{ReasonTooManyConn, "max message per connection reached"}, // Yahoo 421
	{ReasonTooManyConn, "too many concurrent"},
	{ReasonTooManyConn, "too many simultaneous"},
	{ReasonTooManyConn, "too many sessions"},
	{ReasonTooManyConn, "too many smtp sessions"},
	{ReasonTooManyConn, "too many open connections"},
	{ReasonTooManyConn, "concurrent connections"},
	{ReasonTooManyConn, "connection limit"},
	{ReasonTooManyConn, "connection rate limit"},
	{ReasonTooManyConn, "connections limit"},
	{ReasonTooManyConn, "maximum number of connections"},
	{ReasonTooManyConn, "max connections"},
	{ReasonTooManyConn, "frequency limited"}, // Tencent QQ
	{ReasonTooManyConn, "too many recipients"},
	{ReasonTooManyConn, "too many errors"},
	{ReasonTooManyConn, "max emails per hour"},
	{ReasonTooManyConn, "throttling failure"}, // Amazon SES
	{ReasonTooManyConn, "too many errors from your ip"},
	{ReasonTooManyConn, "trop de connexions"},
	{ReasonTooManyConn, "numerous attempts to deliver this message"},

	// ---- speeding: sending too fast
	{ReasonSpeeding, "recipient thread limit exceeded"},         // Exchange Online 4.3.2: the mailbox receives too fast
	{ReasonSpeeding, "smtp relay limit exceeded"},               // Google Workspace SMTP relay peak/daily limits
	{ReasonSpeeding, "deferred due to excessive volume"},        // Apple iCloud 421 4.7.1
	{ReasonSpeeding, "tenant has exceeded threshold"},           // Microsoft 365 5.7.705: tenant blocked for its sending volume
	{ReasonSpeeding, "mailbox full; submission quota exceeded"}, // Microsoft 365 554 5.2.2: the sender's submission quota
	{ReasonSpeeding, "rate limit"},
	{ReasonSpeeding, "rate-limit"},
	{ReasonSpeeding, "ratelimit"},
	{ReasonSpeeding, "rate limited"},
	{ReasonSpeeding, "rate exceeded"},
	{ReasonSpeeding, "exceeded the rate"},
	{ReasonSpeeding, "sending rate"},
	{ReasonSpeeding, "message rate"},
	{ReasonSpeeding, "too fast"},
	{ReasonSpeeding, "throttl"},
	{ReasonSpeeding, "receiving mail at a rate"}, // Gmail 4.2.1
	{ReasonSpeeding, "too many messages"},
	{ReasonSpeeding, "too many emails"},
	{ReasonSpeeding, "too many mails"},
	{ReasonSpeeding, "too many recipients this hour"}, // GoDaddy IB607
	{ReasonSpeeding, "sent to too many recipients"},
	{ReasonSpeeding, "exceeded * sending limit"},
	{ReasonSpeeding, "sending limit exceeded"},
	{ReasonSpeeding, "hourly limit"},
	{ReasonSpeeding, "daily limit"},
	{ReasonSpeeding, "mail flood"},
	{ReasonSpeeding, "envoi trop rapide"},
	{ReasonSpeeding, "receiving mail too quickly"},               // Gmail 4.2.1
	{ReasonSpeeding, "sending quota exceeded"},                   // Gmail 5.4.5 daily sending quota
	{ReasonSpeeding, "receive limit"},                            // Microsoft 5.2.121/5.2.122
	{ReasonSpeeding, "server busy. please try again later from"}, // Microsoft 4.7.500-699 throttling
	{ReasonSpeeding, "please try again slower"},

	// ---- virusdetected: the message carries malware
	{ReasonVirusDetected, " virus"},
	{ReasonVirusDetected, "malware"},
	{ReasonVirusDetected, "malicious"},
	{ReasonVirusDetected, "infected"},
	{ReasonVirusDetected, "trojan"},
	{ReasonVirusDetected, "mcspamsignature"}, // Mimecast security policy signature
	{ReasonVirusDetected, "vírus"},
	{ReasonVirusDetected, "вирус"},
	{ReasonVirusDetected, "ウイルス"},
	{ReasonVirusDetected, "病毒"},
	{ReasonVirusDetected, "potentially executable attachment"},
	{ReasonVirusDetected, "used by recent viruses"},

	// ---- spamdetected: the message was judged to be spam
	{ReasonSpamDetected, "work.drbl.imedia.ru"},
	{ReasonSpamDetected, "considered as spam or virus"},
	{ReasonSpamDetected, "contains spam or virus"},
	{ReasonSpamDetected, "possible spam/virus content"},
	{ReasonSpamDetected, "spamprofiler"},
	{ReasonSpamDetected, "reject bulk.advertising"},
	{ReasonSpamDetected, "rejecting mail content"},
	{ReasonSpamDetected, "spamming not allowed"},
	{ReasonSpamDetected, "recurrent pattern detection system"},
	{ReasonSpamDetected, "mail score ( * ) over"},
	{ReasonSpamDetected, "content filter agent quarantined this message"}, // Exchange 5.2.1
	{ReasonSpamDetected, " ou-002 "},                                      // Outlook.com: message content judged spam
	{ReasonSpamDetected, " spam "},
	{ReasonSpamDetected, "spamassassin"},
	{ReasonSpamDetected, "spam score"},
	{ReasonSpamDetected, "spamscore"},
	{ReasonSpamDetected, "spam content"},
	{ReasonSpamDetected, "spam message"},
	{ReasonSpamDetected, "spam detected"},
	{ReasonSpamDetected, "spam classification"},
	{ReasonSpamDetected, "spam filter"},
	{ReasonSpamDetected, "spamfilter"},
	{ReasonSpamDetected, "anti-spam"},
	{ReasonSpamDetected, "antispam"},
	{ReasonSpamDetected, "unsolicited"},
	{ReasonSpamDetected, " ube "},
	{ReasonSpamDetected, " uce "},
	{ReasonSpamDetected, "bulk mail"},
	{ReasonSpamDetected, "junk mail"},
	{ReasonSpamDetected, "message content rejected"},
	{ReasonSpamDetected, "content rejected"},
	{ReasonSpamDetected, "blacklisted url"},
	{ReasonSpamDetected, "uribl"},
	{ReasonSpamDetected, "surbl"},
	{ReasonSpamDetected, "phishing"},
	{ReasonSpamDetected, "ofr_506"}, // Orange "Mail rejete. Mail rejected. OFR_506"
	{ReasonSpamDetected, "suspicious"},
	{ReasonSpamDetected, "courrier indésirable"},
	{ReasonSpamDetected, "pourriel"},
	{ReasonSpamDetected, "correo no deseado"},
	{ReasonSpamDetected, "спам"},
	{ReasonSpamDetected, "スパム"},
	{ReasonSpamDetected, "迷惑メール"},
	{ReasonSpamDetected, "垃圾邮件"},
	{ReasonSpamDetected, "垃圾郵件"},
	{ReasonSpamDetected, "mail content denied"}, // Tencent QQ
	{ReasonSpamDetected, "dt:spm"},              // NetEase 163
	{ReasonSpamDetected, "content filter rejection"},
	{ReasonSpamDetected, "unacceptable content"},
	{ReasonSpamDetected, "rejecting banned content"},
	{ReasonSpamDetected, "bulk email"},
	{ReasonSpamDetected, "spam-like"},
	{ReasonSpamDetected, "blocked by our filter"},
	{ReasonSpamDetected, "spambouncer"},
	{ReasonSpamDetected, "- spam"}, // amavis "Reject, id=... - SPAM"
	{ReasonSpamDetected, "反垃圾"},

	// ---- blocked: the sending IP or host is blocklisted or refused
	{ReasonBlocked, "access denied, please try again later"}, // Microsoft 365 4.7.500-899: sending IP restricted after suspicious activity
	{ReasonBlocked, "try again later, closing connection"},   // Gmail 421 4.7.0: refused at HELO (denial of service protection)
	{ReasonBlocked, "access denied, bad helo"},               // Microsoft 365 5.7.506
	{ReasonBlocked, "access denied, rejected by recipient"},  // Microsoft 365 5.7.507
	{ReasonBlocked, "has exceeded permitted limits within"},  // Microsoft 365 5.7.508 (IPv6 range)
	{ReasonBlocked, "does not accept email over ipv6"},       // Microsoft 365 5.7.510
	{ReasonBlocked, " sc-001 "},                              // Outlook.com: IP refused for its reputation
	{ReasonBlocked, " sc-002 "},
	{ReasonBlocked, " sc-003 "},
	{ReasonBlocked, " sc-004 "},
	{ReasonBlocked, " dy-001 "}, // Outlook.com: dynamic IP range
	{ReasonBlocked, " dy-002 "},
	{ReasonBlocked, " ou-001 "},               // Outlook.com: IP blocked
	{ReasonBlocked, "comcast block for spam"}, // Comcast BL000000: IP on its block list
	{ReasonBlocked, "spamhaus"},
	{ReasonBlocked, "spamcop"},
	{ReasonBlocked, " sorbs"},
	{ReasonBlocked, "barracudacentral"},
	{ReasonBlocked, "blocked using"},
	{ReasonBlocked, "blacklist"},
	{ReasonBlocked, "blocklist"},
	{ReasonBlocked, "black list"},
	{ReasonBlocked, "block list"},
	{ReasonBlocked, "denylist"},
	{ReasonBlocked, " rbl"},
	{ReasonBlocked, "aup#"}, // Cox AUP#CDRBL, AUP#BL ...
	{ReasonBlocked, "dnsbl"},
	{ReasonBlocked, "listed on"},
	{ReasonBlocked, "listed at"},
	{ReasonBlocked, "banned sending ip"}, // Microsoft 5.7.606-649
	{ReasonBlocked, "banned ip"},
	{ReasonBlocked, "ip blocked"},
	{ReasonBlocked, "blocked ip"},
	{ReasonBlocked, "ip address * blocked"},
	{ReasonBlocked, "client host rejected"},
	{ReasonBlocked, "client host blocked"},
	{ReasonBlocked, "host blocked"},
	{ReasonBlocked, "your ip"},
	{ReasonBlocked, "sending ip"},
	{ReasonBlocked, "invalid ip for sending"}, // Yahoo
	{ReasonBlocked, "dynamic ip"},
	{ReasonBlocked, "dynamic address"},
	{ReasonBlocked, "dynamic-ip"},
	{ReasonBlocked, "dial-up"},
	{ReasonBlocked, "dialup"},
	{ReasonBlocked, "residential"},
	{ReasonBlocked, "smtp server of your isp"},
	{ReasonBlocked, "open relay"},
	{ReasonBlocked, "refused to talk to me"},
	{ReasonBlocked, "not accepting connections"},
	{ReasonBlocked, "connections not accepted"},
	{ReasonBlocked, "service refuse"}, // La Poste "Service refusé"
	{ReasonBlocked, "permanently deferred"},
	{ReasonBlocked, "ipcheck.proofpoint"}, // Proofpoint "Blocked - see https://ipcheck.proofpoint.com"
	{ReasonBlocked, "blocked - see"},
	{ReasonBlocked, "blockiert"},
	{ReasonBlocked, "liste noire"},
	{ReasonBlocked, "lista negra"},
	{ReasonBlocked, "черный список"},
	{ReasonBlocked, "чёрный список"},
	{ReasonBlocked, "黑名单"},
	{ReasonBlocked, "黑名單"},
	{ReasonBlocked, "not in whitelist"}, // Gmail "IP not in whitelist for RCPT domain"
	{ReasonBlocked, "not whitelisted"},
	{ReasonBlocked, "traffic not accepted from this ip"},    // Microsoft 5.7.708
	{ReasonBlocked, "client blocked"},                       // Microsoft 5.7.750
	{ReasonBlocked, "helo command rejected"},                // Postfix
	{ReasonBlocked, "destination seem to reject all mails"}, // OpenSMTPD
	{ReasonBlocked, "bad sender ip address"},
	{ReasonBlocked, "sender ip address rejected"},
	{ReasonBlocked, "confirm this mail server"},
	{ReasonBlocked, "your server requires confirmation"},
	{ReasonBlocked, "connection dropped"},
	{ReasonBlocked, "connection reset by peer"},
	{ReasonBlocked, "connection was dropped by remote host"},
	{ReasonBlocked, "currently sending spam"},
	{ReasonBlocked, "you are sending spam"},
	{ReasonBlocked, "dynamic/zombied/spam ips blocked"},
	{ReasonBlocked, "bad ip profile"},
	{ReasonBlocked, "go away"},
	{ReasonBlocked, "excessive unusual activity"},
	{ReasonBlocked, "is not allowed to send mail from"},
	{ReasonBlocked, "no access from mail server"},
	{ReasonBlocked, "no matches to nameserver query"},
	{ReasonBlocked, "refused - see"},
	{ReasonBlocked, "has not passed validation"},
	{ReasonBlocked, "rejecting open proxy"}, // Sendmail
	{ReasonBlocked, "looks suspiciously like spammer"},
	{ReasonBlocked, "service not available, closing transmission channel"}, // RFC 5321 421 text
	{ReasonBlocked, "unwanted messages have been sent from the following ip"},
	{ReasonBlocked, "you are not allowed to connect"},
	{ReasonBlocked, "listed as abusive"},
	{ReasonBlocked, "mail server at * is blocked"},
	{ReasonBlocked, "your access ip * has been rejected"},
	{ReasonBlocked, "lista nera"},

	// ---- userunknown stated by the provider itself (see reasonUserUnknownDefinite)
	{reasonUserUnknownDefinite, "email account that you tried to reach does not exist"}, // Gmail 5.1.1
	{reasonUserUnknownDefinite, "address couldn't be found"},                            // Gmail "Address not found"
	{reasonUserUnknownDefinite, "address could not be found"},
	{reasonUserUnknownDefinite, "** address not found **"},
	{reasonUserUnknownDefinite, "recipient name is not recognized"},          // Exchange 2003
	{reasonUserUnknownDefinite, "recipient address rejected: access denied"}, // Microsoft 365 5.4.1 directory-based edge blocking
	{reasonUserUnknownDefinite, "no mailbox here by that name"},              // qmail
	{reasonUserUnknownDefinite, "recipientnotfound"},                         // Exchange RESOLVER.ADR.RecipientNotFound
	{reasonUserUnknownDefinite, "recipnotfound"},                             // Exchange RESOLVER.ADR.RecipNotFound
	{reasonUserUnknownDefinite, "not listed in domino directory"},            // Lotus Domino
	{reasonUserUnknownDefinite, "not listed in public name & address book"},
	{reasonUserUnknownDefinite, "delivery error: dd this user doesn't have a"},        // Yahoo
	{reasonUserUnknownDefinite, "no valid recipients for this mm"},                    // Verizon
	{reasonUserUnknownDefinite, "adresse destinataire invalide"},                      // La Poste LPN007_416
	{reasonUserUnknownDefinite, "requested action not taken: mailbox unavailable (-"}, // Outlook.com "(-nnn:nnn:-nnn)"
	{reasonUserUnknownDefinite, "ディレクトリのリストにありません"},                                   // Lotus Notes (Japanese)
	{reasonUserUnknownDefinite, "ディレクトリには見つかりません"},                                    // Lotus Domino (Japanese)
	{reasonUserUnknownDefinite, "suppressed sending to this address"},                 // Amazon SES suppression list (earlier invalid-address bounce)
	{reasonUserUnknownDefinite, "d au moins un destinataire invalide"},                // La Poste
	{reasonUserUnknownDefinite, "mail.local: unknown user"},                           // Sendmail's local delivery agent: no such local account
	{reasonUserUnknownDefinite, "mail.local: user unknown"},
	{reasonUserUnknownDefinite, "unknown user: \""},                                   // Postfix local(8): 'unknown user: "name"', no such local account
	{reasonUserUnknownDefinite, "requested mail action aborted, mailbox not found"},   // Yahoo 552 (answered after DATA)
	{reasonUserUnknownDefinite, "requested action not taken: mailbox unavailable (s"}, // Outlook.com "(S2017062302)"
	{reasonUserUnknownDefinite, "no such user!"},                                      // Yandex 5.7.1 at RCPT TO
	{reasonUserUnknownDefinite, "local mailbox * is unavailable: user not found"},     // Mail.ru
	{reasonUserUnknownDefinite, "invalid recipient - https://community.mimecast"},     // Mimecast 550

	// ---- userunknown: no such mailbox at that domain
	{ReasonUserUnknown, "550 address invalid"},
	{ReasonUserUnknown, "mailbox unavaiable"},
	{ReasonUserUnknown, "nessun utente simile in questo indirizzo"},
	{ReasonUserUnknown, "recipient address rejected: invalid-recipient"},
	{ReasonUserUnknown, "recipient address rejected: userunknown"},
	{ReasonUserUnknown, "recipient is not accepted"},
	{ReasonUserUnknown, "sorry, your envelope recipient has been denied"},
	{ReasonUserUnknown, "this recipient is in my badrecipientto list"},
	{ReasonUserUnknown, "this recipient is not in my validrcptto list"},
	{ReasonUserUnknown, "weil die adresse nicht gefunden wurde"},
	{ReasonUserUnknown, "does not exist at the organization"},
	{ReasonUserUnknown, "user ( * ) unknown"},
	{ReasonUserUnknown, "<@> not found"},
	{ReasonUserUnknown, "5.1.0 address rejected"},
	{ReasonUserUnknown, "bad_recipient"},
	{ReasonUserUnknown, "bad-recipient"},
	{ReasonUserUnknown, "can't accept user"},
	{ReasonUserUnknown, "destination addresses were unknown"},
	{ReasonUserUnknown, "destination server rejected recipients"},
	{ReasonUserUnknown, "mailbox invalid"},
	{ReasonUserUnknown, "mailbox not present"},
	{ReasonUserUnknown, "no mail box available for this user"},
	{ReasonUserUnknown, "rejected: account unavailable"},
	{ReasonUserUnknown, "nonexistent user"},
	{ReasonUserUnknown, "non-existent user"},
	{ReasonUserUnknown, "non existent user"},
	{ReasonUserUnknown, "recipient is not local"},
	{ReasonUserUnknown, "recipient not ok"},
	{ReasonUserUnknown, "recipient * was not found in"},
	{ReasonUserUnknown, "following recipients was undeliverable"},
	{ReasonUserUnknown, "there is no one at this address"},
	{ReasonUserUnknown, "email address is wrong or no longer valid"},
	{ReasonUserUnknown, "unknown e-mail address"},
	{ReasonUserUnknown, "unknown email address"},
	{ReasonUserUnknown, "user missing home directory"},
	{ReasonUserUnknown, "not an active address at this host"},
	{ReasonUserUnknown, "this address no longer accepts mail"},
	{ReasonUserUnknown, "recipient addresses in single label domains not accepted"}, // Exchange 5.1.6
	{ReasonUserUnknown, "user unknown"},
	{ReasonUserUnknown, "unknown user"},
	{ReasonUserUnknown, "user * unknown"},
	{ReasonUserUnknown, "no such user"},
	{ReasonUserUnknown, "user not found"},
	{ReasonUserUnknown, "user * not found"},
	{ReasonUserUnknown, "user * was not found"},
	{ReasonUserUnknown, "user does not exist"},
	{ReasonUserUnknown, "user doesn't exist"},
	{ReasonUserUnknown, "user not exist"},
	{ReasonUserUnknown, "user not known"},
	{ReasonUserUnknown, "is not a known user"},
	{ReasonUserUnknown, "unknown local part"}, // Exim
	{ReasonUserUnknown, "unknown local-part"},
	{ReasonUserUnknown, "recipient unknown"},
	{ReasonUserUnknown, "unknown recipient"},
	{ReasonUserUnknown, "recipient not found"},
	{ReasonUserUnknown, "recipient does not exist"},
	{ReasonUserUnknown, "recipient not exist"},
	{ReasonUserUnknown, "no such recipient"},
	{ReasonUserUnknown, "invalid recipient"},
	{ReasonUserUnknown, "recipient invalid"},
	{ReasonUserUnknown, "not a valid recipient"},
	{ReasonUserUnknown, "is not a valid mailbox"},
	{ReasonUserUnknown, "not a valid user"},
	{ReasonUserUnknown, "invalid mailbox"},
	{ReasonUserUnknown, "mailbox not found"},
	{ReasonUserUnknown, "mailbox does not exist"},
	{ReasonUserUnknown, "mailbox * does not exist"},
	{ReasonUserUnknown, "mailbox unavailable"},
	{ReasonUserUnknown, "mailbox is unavailable"},
	{ReasonUserUnknown, "mailbox not available"},
	{ReasonUserUnknown, "no such mailbox"},
	{ReasonUserUnknown, "unknown mailbox"},
	{ReasonUserUnknown, "no mailbox by that name"},
	{ReasonUserUnknown, "no mailbox found"},
	{ReasonUserUnknown, "no account by that name"},
	{ReasonUserUnknown, "account does not exist"},
	{ReasonUserUnknown, "does not have an account"},
	{ReasonUserUnknown, "doesn't have a * account"}, // Yahoo "This user doesn't have a yahoo.com account"
	{ReasonUserUnknown, "address does not exist"},
	{ReasonUserUnknown, "address unknown"},
	{ReasonUserUnknown, "address not found"}, // Gmail "Address not found"
	{ReasonUserUnknown, "email address could not be found"},
	{ReasonUserUnknown, "address invalid"},
	{ReasonUserUnknown, "invalid address"},
	{ReasonUserUnknown, "bad address"},
	{ReasonUserUnknown, "bad recipient"},
	{ReasonUserUnknown, "bad destination mailbox"},
	{ReasonUserUnknown, "does not exist"},
	{ReasonUserUnknown, "no such person"},
	{ReasonUserUnknown, "no such address"},
	{ReasonUserUnknown, "address not present in directory"},
	{ReasonUserUnknown, "not a registered"},
	{ReasonUserUnknown, "no valid recipients"},
	{ReasonUserUnknown, "recipient address rejected: invalid user"},
	{ReasonUserUnknown, "recipient address rejected."},
	{ReasonUserUnknown, "#5.1.0 address rejected"},
	{ReasonUserUnknown, "5.1.1 address rejected"},
	{ReasonUserUnknown, "badrcptto"}, // qmail
	{ReasonUserUnknown, "validrcptto"},
	{ReasonUserUnknown, "unknown or illegal alias"},
	{ReasonUserUnknown, "invalid or unknown virtual user"},
	{ReasonUserUnknown, "this account is not available"},
	{ReasonUserUnknown, "empfänger unbekannt"},
	{ReasonUserUnknown, "benutzer unbekannt"},
	{ReasonUserUnknown, "unbekannter empfänger"},
	{ReasonUserUnknown, "unbekannter benutzer"},
	{ReasonUserUnknown, "existiert nicht"},
	{ReasonUserUnknown, "adresse nicht gefunden"},
	{ReasonUserUnknown, "adresse nicht gefunden wurde"},
	{ReasonUserUnknown, "utilisateur inconnu"},
	{ReasonUserUnknown, "destinataire inconnu"},
	{ReasonUserUnknown, "adresse inconnue"},
	{ReasonUserUnknown, "adresse invalide"},
	{ReasonUserUnknown, "destinataire invalide"},
	{ReasonUserUnknown, "n'existe pas"},
	{ReasonUserUnknown, "usuario desconocido"},
	{ReasonUserUnknown, "usuario no existe"},
	{ReasonUserUnknown, "destinatario desconocido"},
	{ReasonUserUnknown, "no existe dicha persona"},
	{ReasonUserUnknown, "no existe ese usuario"},
	{ReasonUserUnknown, "usuário desconhecido"},
	{ReasonUserUnknown, "usuario desconhecido"},
	{ReasonUserUnknown, "utilizador desconhecido"},
	{ReasonUserUnknown, "destinatário desconhecido"},
	{ReasonUserUnknown, "conta não existe"},
	{ReasonUserUnknown, "não existe"},
	{ReasonUserUnknown, "nao existe"},
	{ReasonUserUnknown, "utente sconosciuto"},
	{ReasonUserUnknown, "utente inesistente"},
	{ReasonUserUnknown, "destinatario sconosciuto"},
	{ReasonUserUnknown, "indirizzo inesistente"},
	{ReasonUserUnknown, "destinatario inesistente"},
	{ReasonUserUnknown, "邮箱地址不存在"},
	{ReasonUserUnknown, "账户不存在"},
	{ReasonUserUnknown, "帐户不存在"},
	{ReasonUserUnknown, "destinatario non esistente"},
	{ReasonUserUnknown, "utente non esistente"},
	{ReasonUserUnknown, "mailbox unknown"},
	{ReasonUserUnknown, "not a valid mailbox"},
	{ReasonUserUnknown, "not valid user"},
	{ReasonUserUnknown, "not found in directory"},
	{ReasonUserUnknown, "was not found in ldap server"},
	{ReasonUserUnknown, "you aren't allowed to deliver to this user"},
	{ReasonUserUnknown, "no such account"},
	{ReasonUserUnknown, "unknown account"},
	{ReasonUserUnknown, "recipient no longer exists"},
	{ReasonUserUnknown, "address is no longer in use"},
	{ReasonUserUnknown, "addressee unknown"}, // Sendmail / AT&T "Addressee unknown"
	{ReasonUserUnknown, "empfängeradresse unbekannt"},
	{ReasonUserUnknown, "mailbox nicht vorhanden"},
	{ReasonUserUnknown, "postfach nicht vorhanden"},
	{ReasonUserUnknown, "postfach existiert nicht"},
	{ReasonUserUnknown, "adresse e-mail introuvable"},
	{ReasonUserUnknown, "destinataire introuvable"},
	{ReasonUserUnknown, "cuenta inexistente"},
	{ReasonUserUnknown, "buzón inexistente"},
	{ReasonUserUnknown, "buzón no existe"},
	{ReasonUserUnknown, "такого пользователя нет"},
	{ReasonUserUnknown, "неизвестный получатель"},
	{ReasonUserUnknown, "ящик не существует"},
	{ReasonUserUnknown, "該当するユーザー"},
	{ReasonUserUnknown, "nessun utente"},
	{ReasonUserUnknown, "non esiste"},
	{ReasonUserUnknown, "пользователь не найден"},
	{ReasonUserUnknown, "нет такого пользователя"},
	{ReasonUserUnknown, "несуществующий"},
	{ReasonUserUnknown, "не существует"},
	{ReasonUserUnknown, "адрес не найден"},
	{ReasonUserUnknown, "ящик не найден"},
	{ReasonUserUnknown, "存在しない"},
	{ReasonUserUnknown, "存在しません"},
	{ReasonUserUnknown, "宛先不明"},
	{ReasonUserUnknown, "ユーザが見つかりません"},
	{ReasonUserUnknown, "ユーザーが見つかりません"},
	{ReasonUserUnknown, "用户不存在"},
	{ReasonUserUnknown, "收件人不存在"},
	{ReasonUserUnknown, "邮箱不存在"},
	{ReasonUserUnknown, "账号不存在"},
	{ReasonUserUnknown, "帐号不存在"},
	{ReasonUserUnknown, "帳號不存在"},
	{ReasonUserUnknown, "用戶不存在"},
	{ReasonUserUnknown, "地址不存在"},
	{ReasonUserUnknown, "usuário inexistente"},
	{ReasonUserUnknown, "usuario inexistente"},
	{ReasonUserUnknown, "caixa postal inexistente"},
	{ReasonUserUnknown, "casella inesistente"},
	{ReasonUserUnknown, "boîte aux lettres inconnue"},
	{ReasonUserUnknown, "boite aux lettres inconnue"},
	{ReasonUserUnknown, "получатель не найден"},
	{ReasonUserUnknown, "адресат не найден"},

	// ---- hostunknown: the recipient domain does not exist
	{reasonHostUnknownDefinite, "host unknown (authoritative answer from name server)"}, // Sendmail: its own DNS lookup
	{ReasonHostUnknown, "domain must exist"},
	{ReasonHostUnknown, "host unknown"},
	{ReasonHostUnknown, "unknown host"},
	{ReasonHostUnknown, "host not found"},
	{ReasonHostUnknown, "host or domain name not found"},  // Postfix
	{ReasonHostUnknown, "illegal host/domain name found"}, // Postfix / Oracle Messaging Server: the domain is malformed
	{ReasonHostUnknown, "domain name not found"},
	{ReasonHostUnknown, "domain not found"},
	{ReasonHostUnknown, "no such domain"},
	{ReasonHostUnknown, "domain does not exist"},
	{ReasonHostUnknown, "domain name does not exist"},
	{ReasonHostUnknown, "couldn't find any host named"}, // qmail
	{ReasonHostUnknown, "could not find any host named"},
	{ReasonHostUnknown, "unknown domain"},
	{ReasonHostUnknown, "domain unknown"},
	{ReasonHostUnknown, "domain is not reachable"}, // Outlook.com
	{ReasonHostUnknown, "unrouteable address"},     // Exim
	{ReasonHostUnknown, "unroutable address"},
	{ReasonHostUnknown, "dns lookup failure: host"},
	{ReasonHostUnknown, "nxdomain"},
	{ReasonHostUnknown, "domain existiert nicht"},
	{ReasonHostUnknown, "unbekannte domain"},
	{ReasonHostUnknown, "domaine inconnu"},
	{ReasonHostUnknown, "domaine inexistant"},
	{ReasonHostUnknown, "dominio no existe"},
	{ReasonHostUnknown, "dominio desconocido"},
	{ReasonHostUnknown, "domínio não existe"},
	{ReasonHostUnknown, "dominio inesistente"},
	{ReasonHostUnknown, "домен не существует"},
	{ReasonHostUnknown, "домен не найден"},
	{ReasonHostUnknown, "ドメインが存在しません"},
	{ReasonHostUnknown, "域名不存在"},
	{ReasonHostUnknown, "nonexistentdomain"}, // Exchange SMTPSEND.DNS.NonExistentDomain
	{ReasonHostUnknown, "nonexistent domain"},
	{ReasonHostUnknown, "non-existent domain"},
	{ReasonHostUnknown, "weren't able to find the recipient domain"}, // Gmail 5.1.2
	{ReasonHostUnknown, "point to non-existent hosts"},               // Exim
	{ReasonHostUnknown, "domain mentioned in email address is unknown"},
	{ReasonHostUnknown, "name or service not known"},
	{ReasonHostUnknown, "unknown domain name"},
	{ReasonHostUnknown, "account or domain may not exist"},
	{ReasonHostUnknown, "553 ~ does not exist"}, // "553 example.com does not exist"
	{ReasonHostUnknown, "recipient domain must exist"},
	{ReasonHostUnknown, "domínio inexistente"},
	{ReasonHostUnknown, "dominio inexistente"},

	// ---- notaccept: the domain accepts no mail (null MX, RFC 7505/7504)
	{ReasonNotAccept, "smtp protocol returned a permanent error"},
	{ReasonNotAccept, "does not accept mail"},
	{ReasonNotAccept, "doesn't accept mail"},
	{ReasonNotAccept, "accepts no mail"},
	{ReasonNotAccept, "not accepting mail"},
	{ReasonNotAccept, "null mx"},
	{ReasonNotAccept, "nullmx"},
	{ReasonNotAccept, "no mx record"},
	{ReasonNotAccept, "mx record not found"},
	{ReasonNotAccept, "couldn't find a mail exchanger"}, // qmail
	{ReasonNotAccept, "could not find a mail exchanger"},
	{ReasonNotAccept, "no mail exchanger"},
	{ReasonNotAccept, "not accepting network messages"}, // RFC 3463 X.3.2
	{ReasonNotAccept, "no mx found"},
	{ReasonNotAccept, "mail receiving disabled"},
	{ReasonNotAccept, "name server: .: host not found"}, // Sendmail
	{ReasonNotAccept, "no route for current request"},

	// ---- filtered: refused by a recipient-side rule
	{ReasonFiltered, "account is protected by"},
	{ReasonFiltered, "not found recipient account"},
	{ReasonFiltered, "sender was not authenticated by organization"}, // Exchange 5.7.12: recipient refuses senders outside its organisation
	{ReasonFiltered, "sender not authenticated for"},                 // Exchange 5.7.133-136: recipient accepts authenticated senders only
	{ReasonFiltered, "sender was not authenticated for"},
	{ReasonFiltered, "resolver.rst.sendernotauthenticatedfor"},
	{ReasonFiltered, "message filtered"},
	{ReasonFiltered, "filtered"},
	{ReasonFiltered, "recipient preferences"}, // Facebook
	{ReasonFiltered, "user refuses"},
	{ReasonFiltered, "refuse to receive"},
	{ReasonFiltered, "refuses to accept"},
	{ReasonFiltered, "due to user rules"},
	{ReasonFiltered, "user reject"},
	{ReasonFiltered, "blocked by the recipient"},
	{ReasonFiltered, "blocked by recipient"},
	{ReasonFiltered, "only accepting mail from"}, // AOL
	{ReasonFiltered, "only accepts mail from"},
	{ReasonFiltered, "not accepting any mail"},
	{ReasonFiltered, "restricted sms e-mail"}, // AT&T
	{ReasonFiltered, "受信拒否"},
	{ReasonFiltered, "拒收"},
	{ReasonFiltered, "not in allowed-senders list"}, // Microsoft 5.7.124
	{ReasonFiltered, "delivery to this address is restricted"},
	{ReasonFiltered, "bounced address"}, // SendGrid

	// ---- rejected: the sender address or domain was refused
	{ReasonRejected, "resolver.rst.notauthorized"}, // Exchange: the sender is not allowed to send to this recipient
	{ReasonRejected, "connections not accepted from servers without a valid sender domain"},
	{ReasonRejected, "denied by secumail valid-address-filter"},
	{ReasonRejected, "does not exist e2110"},
	{ReasonRejected, "error: no third-party dsns"}, // SpamWall: empty sender refused
	{ReasonRejected, "invalid domain, see <url:"},
	{ReasonRejected, "recursive cname records for"},
	{ReasonRejected, "rule imposed mailbox access for"}, // MailMarshal
	{ReasonRejected, "sending this from a different address or alias using the"},
	{ReasonRejected, "your access to submit messages to this e-mail system has been rejected"},
	{ReasonRejected, "access denied, spam abuse detected"},           // Microsoft 365 5.7.501-503: the sending account is banned
	{ReasonRejected, "sender has no a, aaaa, or mx dns records"},     // Mimecast 550
	{ReasonRejected, "sender account is disabled or not registered"}, // Google Workspace 550 5.7.0 "Mail Sending denied"
	{ReasonRejected, "sender address rejected"},
	{ReasonRejected, "sender rejected"},
	{ReasonRejected, "sender address is not valid"},
	{ReasonRejected, "sender denied"},
	{ReasonRejected, "sender refused"},
	{ReasonRejected, "sender was rejected"},
	{ReasonRejected, "rejected sender"},
	{ReasonRejected, "sender is not allowed"},
	{ReasonRejected, "sender not allowed"},
	{ReasonRejected, "sender blocked"},
	{ReasonRejected, "blocked senders"}, // Mimecast
	{ReasonRejected, "sender verify failed"},
	{ReasonRejected, "sender verification failed"},
	{ReasonRejected, "could not verify sender"},
	{ReasonRejected, "sender address verification"},
	{ReasonRejected, "invalid sender"},
	{ReasonRejected, "sender invalid"},
	{ReasonRejected, "bad sender"},
	{ReasonRejected, "sender unknown"},
	{ReasonRejected, "unknown sender"},
	{ReasonRejected, "sender domain"},
	{ReasonRejected, "domain of sender address"}, // Sendmail 5.1.8
	{ReasonRejected, "domain of sender address * does not exist"},
	{ReasonRejected, "sender address * does not exist"},
	{ReasonRejected, "unresolvable rfc.5321"}, // Yahoo 451: the envelope sender's domain does not resolve
	{ReasonRejected, "unroutable sender"},
	{ReasonRejected, "unrouteable sender"},
	{ReasonRejected, "envelope sender"},
	{ReasonRejected, "badmailfrom"}, // qmail
	{ReasonRejected, "not allowed to send"},
	{ReasonRejected, "not authorized to send"},
	{ReasonRejected, "provide a valid from"},
	{ReasonRejected, "temporarily deferred due to user complaints"},
	{ReasonRejected, "not a member of"},
	{ReasonRejected, "not subscribed"},
	{ReasonRejected, "permission to post"}, // Google Groups
	{ReasonRejected, "send mail as"},       // Gmail "Send mail as" alias misconfigured
	{ReasonRejected, "may not exist, or you may not have permission"},
	{ReasonRejected, "存在しないか、グループにメッセージを投稿する権限"},
	{ReasonRejected, "n'existe pas ou que vous ne soyez pas autorisé"},
	{ReasonRejected, "غير مصرح لك بإرسال رسائل"},
	{ReasonRejected, "مجوز لازم برای"},
	{ReasonRejected, "אישור לפרסם"},
	{ReasonRejected, "allowed to post"},
	{ReasonRejected, "投稿する権限"},
	{ReasonRejected, "張貼留言的權限"},
	{ReasonRejected, "发帖的权限"},
	{ReasonRejected, "berechtigungen * nachrichten zu posten"},
	{ReasonRejected, "permisos necesarios para publicar"},
	{ReasonRejected, "autorisé à lui envoyer des messages"},
	{ReasonRejected, "permissão para postar"},
	{ReasonRejected, "autorizzazione a pubblicare"},
	{ReasonRejected, "разрешения публиковать"},
	{ReasonRejected, "дозволу публікувати"},
	{ReasonRejected, "nemáte oprávnění"},
	{ReasonRejected, "absender abgelehnt"},
	{ReasonRejected, "expéditeur refusé"},
	{ReasonRejected, "remitente rechazado"},
	{ReasonRejected, "remetente rejeitado"},
	{ReasonRejected, "отправитель отклонен"},
	{ReasonRejected, "sender address rejected: * not found"},
	{ReasonRejected, "sender address rejected: * unknown"},
	{ReasonRejected, "sender address rejected: * does not exist"},
	{ReasonRejected, "sendernotauthenticated"},     // Microsoft RESOLVER.RST.SenderNotAuthenticatedForGroup
	{ReasonRejected, "administrative prohibition"}, // Exim, Mimecast
	{ReasonRejected, "envelope blocked - "},        // Mimecast block lists of senders
	{ReasonRejected, "sender blacklisted"},
	{ReasonRejected, "batv"},
	{ReasonRejected, "backscatter protection"},
	{ReasonRejected, "sender isn't on the recipient's list of senders"}, // Microsoft
	{ReasonRejected, "bogus mail from"},
	{ReasonRejected, "purported responsible address"},
	{ReasonRejected, "bouncedeny"},
	{ReasonRejected, "senderfilterconfig"},
	{ReasonRejected, "emetteur invalide"},
	{ReasonRejected, "émetteur invalide"},
	{ReasonRejected, "empty envelope senders"},
	{ReasonRejected, "fully qualified email address required"},
	{ReasonRejected, "is not a registered gateway user"},
	{ReasonRejected, "mail from not owned by user"},
	{ReasonRejected, "recipient addresses rejected : access denied"},
	{ReasonRejected, "returned mail not accepted here"},
	{ReasonRejected, "sender address has been blacklisted"},
	{ReasonRejected, "sender email address rejected"},
	{ReasonRejected, "sender is in my black list"},
	{ReasonRejected, "sender is spammer"},
	{ReasonRejected, "sender not pre-approved"},
	{ReasonRejected, "spam reporting address"}, // SendGrid
	{ReasonRejected, "syntax error: empty email address"},
	{ReasonRejected, "unsigned dsn"},
	{ReasonRejected, "address that has been blacklisted"},
	{ReasonRejected, "email address has been blacklisted"}, // MessageLabs
	{ReasonRejected, "this server does not accept mail from"},
	{ReasonRejected, "sender domain must exist"},
	{ReasonRejected, "unrouteable address * sender verify failed"}, // Exim sender callout
	{ReasonRejected, "verification failed for * sender verify failed"},
	{ReasonRejected, "sender address is not allowed"},
	{ReasonRejected, "sender address not allowed"},
	{ReasonRejected, "mittente rifiutato"},
	{ReasonRejected, "送信元アドレスが拒否"},
	{ReasonRejected, "发件人被拒绝"},
	{ReasonRejected, "домен отправителя"},

	// ---- expired: the sending MTA gave up after its queue lifetime
	{ReasonExpired, "have been failing for a long time"},
	{ReasonExpired, "unable to deliver message after multiple retries"},
	{ReasonExpired, "message expired"},
	{ReasonExpired, "envelope expired"}, // OpenSMTPD
	{ReasonExpired, "delivery expired"},
	{ReasonExpired, "queue.expired"}, // Exchange QUEUE.Expired
	{ReasonExpired, "delivery time expired"},
	{ReasonExpired, "retry timeout exceeded"}, // Exim
	{ReasonExpired, "retry time not reached for any host after a long failure period"},
	{ReasonExpired, "all hosts have been failing for a long time"},
	{ReasonExpired, "in the queue too long"},
	{ReasonExpired, "too long in queue"},
	{ReasonExpired, "queue too long"},
	{ReasonExpired, "could not be delivered for"},
	{ReasonExpired, "could not deliver for the last"}, // DragonFly
	{ReasonExpired, "unable to deliver in"},
	{ReasonExpired, "giving up"},
	{ReasonExpired, "delivery failed * attempts"},
	{ReasonExpired, "will be retried for"},
	{ReasonExpired, "has been delayed"},
	{ReasonExpired, "message has been delayed"},
	{ReasonExpired, "connection timed out"},
	{ReasonExpired, "operation timed out"},
	{ReasonExpired, ": timed out]"},
	{ReasonExpired, "did not accept our requests to connect"}, // Gmail
	{ReasonExpired, "server did not respond"},
	{ReasonExpired, "was not reachable within the allowed queue period"},
	{ReasonExpired, "maximum queue time"},
	{ReasonExpired, "配信期限"},
	{ReasonExpired, "cannot send message for"}, // Sendmail
	{ReasonExpired, "could not send message for"},
	{ReasonExpired, "message timed out"},
	{ReasonExpired, "delivery attempts will continue"},
	{ReasonExpired, "could not find a gateway for"},
	{ReasonExpired, "failed to deliver to domain"},
	{ReasonExpired, "has not been collected after"},
	{ReasonExpired, "zeitüberschreitung"},
	{ReasonExpired, "délai d'attente dépassé"},

	// ---- policyviolation: refused under a receiving-site policy
	{ReasonPolicyViolation, "header are not accepted"},
	{ReasonPolicyViolation, "messages with multiple addresses"},
	{ReasonPolicyViolation, "exceeded its quota for sending messages with the same message-id"}, // Gmail 4.7.28
	{ReasonPolicyViolation, "reject due to policy restrictions"},                                // GMX / WEB.DE 554
	{ReasonPolicyViolation, "policy violation"},
	{ReasonPolicyViolation, "violates * policy"},
	{ReasonPolicyViolation, "violation of * policy"},
	{ReasonPolicyViolation, "against * policy"},
	{ReasonPolicyViolation, "policy reasons"},
	{ReasonPolicyViolation, "by policy"},
	{ReasonPolicyViolation, "local policy"},
	{ReasonPolicyViolation, "organization policy"},
	{ReasonPolicyViolation, "organisation policy"},
	{ReasonPolicyViolation, "security policies"},
	{ReasonPolicyViolation, "content presents a potential security issue"}, // Gmail 5.7.0
	{ReasonPolicyViolation, "content presents a potential"},
	{ReasonPolicyViolation, "header error"},
	{ReasonPolicyViolation, "host network not allowed"}, // Mimecast
	{ReasonPolicyViolation, "not accepting mail with attachments"},
	{ReasonPolicyViolation, "attachment not allowed"},
	{ReasonPolicyViolation, "attachment type not allowed"},
	{ReasonPolicyViolation, "was blocked due to content policy"},
	{ReasonPolicyViolation, "attachments are not allowed"},
	{ReasonPolicyViolation, "prohibited attachment"},
	{ReasonPolicyViolation, "banned attachment"},
	{ReasonPolicyViolation, "allowable number of posts"},
	{ReasonPolicyViolation, "policy that prohibited"},             // Gmail 5.7.1
	{ReasonPolicyViolation, "illegal attachment"},                 // Gmail 5.7.0, Exim
	{ReasonPolicyViolation, "anti-spoofing"},                      // Mimecast
	{ReasonPolicyViolation, "does not allow external forwarding"}, // Microsoft 5.7.520
	{ReasonPolicyViolation, "members-only list"},
	{ReasonPolicyViolation, "closed mailing list"},
	{ReasonPolicyViolation, "due to organizational settings"},
	{ReasonPolicyViolation, "message given low priority"},
	{ReasonPolicyViolation, "protocol violation"},
	{ReasonPolicyViolation, "not subscribed to this group"}, // Google Groups
	{ReasonPolicyViolation, "containing images or other attachments"},
	{ReasonPolicyViolation, "using a mass mailer"},
	{ReasonPolicyViolation, "recipient is not accepting mail with"}, // AOL
	{ReasonPolicyViolation, "content restrictions"},

	// ---- contenterror: message content or headers refused
	{ReasonContentError, "header is too long"}, // Microsoft 365 5.0.350 (x-dg-ref)
	{ReasonContentError, "media error"},
	{ReasonContentError, "media not supported"},
	{ReasonContentError, "conversion required"},
	{ReasonContentError, "invalid mime"},
	{ReasonContentError, "mime headers"},
	{ReasonContentError, "improperly-formatted"},
	{ReasonContentError, "unnecessary base64"},
	{ReasonContentError, "8bit data"},
	{ReasonContentError, "8-bit data"},
	{ReasonContentError, "invalid content"},
	{ReasonContentError, "illegal header"},
	{ReasonContentError, "malformed header"},
	{ReasonContentError, "too many received"},
	{ReasonContentError, "mime complexity"},
	{ReasonContentError, "data format error"}, // Sendmail
	{ReasonContentError, "header size exceeds maximum permitted"},
	{ReasonContentError, "header size, or recipient list, exceeds policy limit"},

	// ---- failedstarttls: STARTTLS could not be negotiated
	{ReasonFailedSTARTTLS, "starttls may not be repeated"},                                        // Gmail 454 5.5.1
	{ReasonFailedSTARTTLS, "must support tls to receive mail"},                                    // Microsoft 365 451 5.7.321 starttls-not-supported
	{ReasonFailedSTARTTLS, "rate limited because this message wasn't sent over a tls connection"}, // Gmail 4.7.29
	{ReasonFailedSTARTTLS, "requires all bulk email senders to use tls"},
	{ReasonFailedSTARTTLS, "starttls failed"},
	{ReasonFailedSTARTTLS, "starttls * failed"},
	{ReasonFailedSTARTTLS, "must issue a starttls"},
	{ReasonFailedSTARTTLS, "starttls is required"},
	{ReasonFailedSTARTTLS, "starttls required"},
	{ReasonFailedSTARTTLS, "tls required"},
	{ReasonFailedSTARTTLS, "tls is required"},
	{ReasonFailedSTARTTLS, "requires tls"},
	{ReasonFailedSTARTTLS, "tls handshake"},
	{ReasonFailedSTARTTLS, "tls negotiation"},
	{ReasonFailedSTARTTLS, "ssl handshake"},
	{ReasonFailedSTARTTLS, "cannot start tls"},
	{ReasonFailedSTARTTLS, "could not start tls"},
	{ReasonFailedSTARTTLS, "tls not available"},
	{ReasonFailedSTARTTLS, "requiretls"},

	// ---- securityerror: a security requirement failed
	{ReasonSecurityError, "not authorized to send mail, authentication is required"},
	{ReasonSecurityError, "failed dane validation"}, // Microsoft 365 5.7.323 tlsa-invalid
	{ReasonSecurityError, "dnssec-invalid"},         // Microsoft 365 5.7.324
	{ReasonSecurityError, "authentication required"},
	{ReasonSecurityError, "authrequired"}, // Exchange RESOLVER.RST.AuthRequired
	{ReasonSecurityError, "authentication is required"},
	{ReasonSecurityError, "smtp authentication"},
	{ReasonSecurityError, "must authenticate"},
	{ReasonSecurityError, "authentication failed"},
	{ReasonSecurityError, "authentication credentials invalid"},
	{ReasonSecurityError, "authentication mechanism is too weak"},
	{ReasonSecurityError, "delivery not authorized"}, // RFC 3463 X.7.1
	{ReasonSecurityError, "encryption required"},
	{ReasonSecurityError, "encryption needed"},
	{ReasonSecurityError, "certificate"},
	{ReasonSecurityError, "relay through this server without authentication"}, // MessageLabs
	{ReasonSecurityError, "not authenticated to send anonymous mail"},         // Microsoft 5.7.57
	{ReasonSecurityError, "authentication failure"},
	{ReasonSecurityError, "authentication turned on in your email client"}, // MessageLabs
	{ReasonSecurityError, "executable files are not allowed"},
	{ReasonSecurityError, "unauthenticated senders not allowed"},
	{ReasonSecurityError, "you don't authenticate"}, // qmail
	{ReasonSecurityError, "not subscribed to ses"},
	{ReasonSecurityError, "not authorized to perform ses:"}, // Amazon SES

	// ---- syntaxerror: SMTP command syntax error
	{ReasonSyntaxError, "smtp protocol violation"},           // Gmail 454 4.5.0 / 525 5.7.10
	{ReasonSyntaxError, "unrecognized authentication type"},  // Gmail 504 5.7.4
	{ReasonSyntaxError, "too many unauthenticated commands"}, // Gmail 554 5.7.0
	{ReasonSyntaxError, "syntax error"},
	{ReasonSyntaxError, "command unrecognized"},
	{ReasonSyntaxError, "unrecognized command"},
	{ReasonSyntaxError, "command not recognized"},
	{ReasonSyntaxError, "command not implemented"},
	{ReasonSyntaxError, "bad sequence of commands"},
	{ReasonSyntaxError, "improper sequence of commands"},
	{ReasonSyntaxError, "invalid command"},
	{ReasonSyntaxError, "malformed address"},
	{ReasonSyntaxError, "parameters not recognized"},

	// ---- systemfull: the receiving system's disk or queue is full
	{ReasonSystemFull, "insufficient system storage"}, // RFC 5321 452 text
	{ReasonSystemFull, "mail system full"},
	{ReasonSystemFull, "system storage"},
	{ReasonSystemFull, "disk full"},
	{ReasonSystemFull, "disk is full"},
	{ReasonSystemFull, "queue full"},
	{ReasonSystemFull, "queue is full"},
	{ReasonSystemFull, "out of disk space"},
	{ReasonSystemFull, "server is full"},
	{ReasonSystemFull, "insufficient disk space"},
	{ReasonSystemFull, "not enough disk space"},
	{ReasonSystemFull, "no space left on device"},

	// ---- mailererror: the local delivery program failed
	{ReasonMailerError, "pipe to |"},
	{ReasonMailerError, "procmail"},
	{ReasonMailerError, "maildrop"},
	{ReasonMailerError, "command died"},
	{ReasonMailerError, "command output"},
	{ReasonMailerError, "mailer error"},
	{ReasonMailerError, "unknown mailer"},
	{ReasonMailerError, "delivery to program"},
	{ReasonMailerError, "program exited"},
	{ReasonMailerError, "exited with"},
	{ReasonMailerError, "local delivery failed"},
	{ReasonMailerError, "maildir delivery"}, // qmail-local "Temporary error on maildir delivery"
	{ReasonMailerError, " || exit "},
	{ReasonMailerError, "command failed:"},

	// ---- networkerror: DNS or connection problem on the way
	{ReasonNetworkError, "smtpsend.dns.mxloopback"}, // Exchange: the destination's MX points back at the sender
	{ReasonNetworkError, "message looping"},
	{ReasonNetworkError, "connection expired, try reconnecting"}, // Gmail 421 4.7.0
	{ReasonNetworkError, "connection refused"},
	{ReasonNetworkError, "no route to host"},
	{ReasonNetworkError, "network is unreachable"},
	{ReasonNetworkError, "host is unreachable"},
	{ReasonNetworkError, "connection reset"},
	{ReasonNetworkError, "lost connection"},
	{ReasonNetworkError, "could not connect"},
	{ReasonNetworkError, "couldn't connect"},
	{ReasonNetworkError, "unable to connect"},
	{ReasonNetworkError, "failed to connect"},
	{ReasonNetworkError, "establish an smtp connection"},
	{ReasonNetworkError, "dns error"}, // Gmail "DNS Error: ... lookup of X responded with code NXDOMAIN"
	{ReasonNetworkError, "dns error: * nxdomain"},
	{ReasonNetworkError, "dns error: * domain name not found"},
	{ReasonNetworkError, "dns type"},
	{ReasonNetworkError, "dns lookup"},
	{ReasonNetworkError, "name service error"},
	{ReasonNetworkError, "host not found, try again"}, // Postfix temporary DNS failure
	{ReasonNetworkError, "temporary lookup failure"},
	{ReasonNetworkError, "malformed or unexpected name server reply"},
	{ReasonNetworkError, "name server"},
	{ReasonNetworkError, "routing loop"},
	{ReasonNetworkError, "mail loop"},
	{ReasonNetworkError, "too many hops"},
	{ReasonNetworkError, "network error"},
	{ReasonNetworkError, "loop detected"},
	{ReasonNetworkError, "hop count exceeded"},            // Exchange 5.4.14
	{ReasonNetworkError, "host lookup did not complete"},  // Exim
	{ReasonNetworkError, "connection died"},               // qmail
	{ReasonNetworkError, "conversation with * timed out"}, // Postfix
	{ReasonNetworkError, "could not connect and send"},
	{ReasonNetworkError, "destination computer could not be found"}, // Exchange
	{ReasonNetworkError, "host name lookup failure"},
	{ReasonNetworkError, "forwarding loop"},
	{ReasonNetworkError, "malformed name server reply"},
	{ReasonNetworkError, "unable to resolve route"},
	{ReasonNetworkError, "unrouteable mail domain"},
	{ReasonNetworkError, "host unreachable"},

	// ---- systemerror: an error on the receiving system
	{ReasonSystemError, "dns violates rfc 1035"},                                       // Courier: the destination domain's DNS is broken
	{ReasonSystemError, "resolver.adr.badprimary"},                                     // Exchange: recipient's primary SMTP address missing
	{ReasonSystemError, "resolver.adr.invalidinsmtp"},                                  // Exchange: address invalid in SMTP (directory fault)
	{ReasonSystemError, "resolver.adr.ambiguous"},                                      // Exchange: address matches several directory entries
	{ReasonSystemError, "message failed to be replicated"},                             // Exchange Online 4.4.24-28
	{ReasonSystemError, "(suspiciousremoteservererror)"},                               // Exchange Online X.4.318: connection reset by the remote server
	{ReasonSystemError, "pfa agent busy"},                                              // Microsoft 365 451 4.7.700
	{ReasonSystemError, "multiple destination domains per transaction is unsupported"}, // Gmail 451 4.3.0
	{ReasonSystemError, "mail server temporarily rejected message"},                    // Gmail 451 4.3.0
	{ReasonSystemError, "mail server has temporarily rejected this message"},
	{ReasonSystemError, "temporary system problem"}, // Gmail 421/454 4.7.0
	{ReasonSystemError, "internal error"},
	{ReasonSystemError, "internal server error"},
	{ReasonSystemError, "internal system error"},
	{ReasonSystemError, "system error"},
	{ReasonSystemError, "system config error"},
	{ReasonSystemError, "local error"},
	{ReasonSystemError, "server error"},
	{ReasonSystemError, "service unavailable"},
	{ReasonSystemError, "service currently unavailable"},
	{ReasonSystemError, "service not available"},
	{ReasonSystemError, "temporarily unavailable"},
	{ReasonSystemError, "transaction failed"},
	{ReasonSystemError, "loops back to myself"},
	{ReasonSystemError, "i/o error"},
	{ReasonSystemError, "unexpected error"},
	{ReasonSystemError, "server busy"},
	{ReasonSystemError, "system busy"},
	{ReasonSystemError, "misconfigured"},
	{ReasonSystemError, "configuration error"},
	{ReasonSystemError, "ldap server"},
	{ReasonSystemError, "queue file write error"}, // Postfix cleanup(8)
	{ReasonSystemError, "currently unavailable"},
	{ReasonSystemError, "loops back to me"},
	{ReasonSystemError, "message is looping"}, // qmail
	{ReasonSystemError, "best-preference mx"}, // qmail
	{ReasonSystemError, "forwarding loop broken"},
	{ReasonSystemError, "can't create user output file"},
	{ReasonSystemError, "could not load drd"},
	{ReasonSystemError, "interrupted system call"},
	{ReasonSystemError, "error while being processed"},
	{ReasonSystemError, "would create a mail loop"},
	{ReasonSystemError, "loop was found in the mail exchanger"},
	{ReasonSystemError, "there is no mdb"},
	{ReasonSystemError, "temporary local problem"},
	{ReasonSystemError, "timeout waiting for input"},
	{ReasonSystemError, "unable to connect * daemon"},

	// ---- onhold: the server deferred its decision
	{ReasonOnHold, "on hold"},
	{ReasonOnHold, "greylist"},
	{ReasonOnHold, "graylist"},
}

// weakPhraseTable lists generic words that name a family of causes. They
// decide only where no strong phrase, specific status code or hint does.
var weakPhraseTable = []phraseRule{
	{ReasonBlocked, "blocked"},
	{ReasonBlocked, "banned"},
	{ReasonPolicyViolation, "policy"},
	{ReasonSecurityError, "access denied"},
	{ReasonSecurityError, "not authorized"},
	{ReasonSecurityError, "not permitted"},
}
