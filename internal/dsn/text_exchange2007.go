package dsn

// Exchange 2007-2019 and Microsoft 365 non-delivery reports whose
// delivery-status part is missing or unusable (forwarded, flattened to
// text, stripped by a gateway). The human part lists the recipients under
// "Delivery has failed to these recipients or groups:" (older: "...or
// distribution lists:"), in the sender's language, and gives the
// machine-readable line in "Diagnostic information for administrators:":
// "Remote Server returned '550 5.1.1 RESOLVER.ADR.RecipNotFound; not
// found'" or "#550 5.1.1 RESOLVER.ADR.RecipNotFound; not found ##".
// The recipient line repeats in the administrators' block; the first
// occurrence wins and both blocks feed the diagnostic.

var exchange2007Format = &textFormat{
	name: "exchange2007",
	bodyHas: []string{
		"Delivery has failed to these recipients or groups:",
		"Delivery has failed to these recipients or distribution lists:",
		"Fehler bei der Zustellung an folgende Empfänger oder Gruppen:",
		"Die Nachricht konnte nicht an folgende Empfänger oder Verteilerlisten zugestellt werden:",
		"La remise aux destinataires ou groupes suivants a échoué :",
		"La remise à ces destinataires ou groupes a échoué :",
		"次の受信者またはグループへの配信に失敗しました:",
		"Falha na entrega a estes destinatários ou grupos:",
		"Error en la entrega a estos destinatarios o grupos:",
		"Recapito non riuscito ai seguenti destinatari o gruppi:",
		"Не удалось доставить сообщение следующим получателям или группам:",
		"Delivery is delayed to these recipients or groups:",
	},
	start: []string{
		"Delivery has failed to these recipients",
		"Fehler bei der Zustellung an folgende Empfänger",
		"Die Nachricht konnte nicht an folgende Empfänger",
		"La remise aux destinataires ou groupes suivants",
		"La remise à ces destinataires",
		"次の受信者またはグループへの配信に失敗しました",
		"Falha na entrega a estes destinatários",
		"Error en la entrega a estos destinatarios",
		"Recapito non riuscito ai seguenti destinatari",
		"Не удалось доставить сообщение следующим получателям",
		"Delivery is delayed to these recipients",
	},
	stop: []string{"Original message headers:", "Original Message Headers", "Ursprüngliche Nachrichtenkopfzeilen:", "En-têtes de message d'origine :", "元のメッセージ ヘッダー:"},
	rcpt: rcptRule{lead: true, bare: true},
	// Exchange's delay notice ("Delivery is delayed to these recipients
	// or groups:", "This message hasn't been delivered yet").
	delayed: []string{"Delivery is delayed to these recipients", "hasn't been delivered yet"},
	skip:    []string{"Generating server:", "Server, der den Fehler generiert hat:", "Serveur de génération :"},
	hints: []phraseHint{
		{"resolver.adr.recipnotfound", "userunknown"},
		{"resolver.adr.exrecipnotfound", "userunknown"},
		{"resolver.adr.recipientnotfound", "userunknown"},
		{"resolver.rst.recipsizelimit", "exceedlimit"},
		{"resolver.rst.authrequired", "securityerror"},
		{"resolver.rst.notauthorized", "rejected"},
		{"storedrv.deliver.exceptions:quotaexceededexception", "mailboxfull"},
		{"mailbox full", "mailboxfull"},
	},
}

func init() { registerText(78, exchange2007Format) }
