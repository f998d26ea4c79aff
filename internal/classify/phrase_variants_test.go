package classify

import "testing"

// TestPhraseVariants checks that common variants of provider and MTA reply
// wording (other phrasings, other languages) reach their reason when the
// codes say no more than their class and the reply answered RCPT TO.
func TestPhraseVariants(t *testing.T) {
	cases := []struct{ st, rc, diag, want string }{
		{"5.0.0", "550", "550 Mailbox unknown", "userunknown"},
		{"5.0.0", "550", "550 Destinatario inesistente", "userunknown"},
		{"5.0.0", "552", "552 Message exceeds maximum size", "mesgtoobig"},
		{"5.0.0", "550", "550 Recipient address rejected: undeliverable address: unknown user", "userunknown"},
		{"5.0.0", "550", "550 No such recipient", "userunknown"},
		{"5.0.0", "550", "550 recipient does not exist here", "userunknown"},
		{"5.0.0", "550", "550 Unknown local part x in <x@example.com>", "userunknown"},
		{"5.0.0", "550", "550 Invalid mailbox", "userunknown"},
		{"5.0.0", "550", "550 Mailbox not found", "userunknown"},
		{"5.0.0", "550", "550 user doesn't exist", "userunknown"},
		{"5.0.0", "550", "550 This user does not exist", "userunknown"},
		{"5.0.0", "550", "550 address not found", "userunknown"},
		{"5.0.0", "550", "550 Requested action not taken: mailbox unavailable", "userunknown"},
		{"5.0.0", "550", "550 Benutzer unbekannt", "userunknown"},
		{"5.0.0", "550", "550 Empfängeradresse unbekannt", "userunknown"},
		{"5.0.0", "550", "550 Mailbox nicht vorhanden", "userunknown"},
		{"5.0.0", "550", "550 Destinataire inconnu", "userunknown"},
		{"5.0.0", "550", "550 Adresse e-mail introuvable", "userunknown"},
		{"5.0.0", "550", "550 Cuenta inexistente", "userunknown"},
		{"5.0.0", "550", "550 El usuario no existe", "userunknown"},
		{"5.0.0", "550", "550 Destinatário desconhecido", "userunknown"},
		{"5.0.0", "550", "550 O usuário não existe", "userunknown"},
		{"5.0.0", "550", "550 Такого пользователя нет", "userunknown"},
		{"5.0.0", "550", "550 Нет такого пользователя", "userunknown"},
		{"5.0.0", "550", "550 Неизвестный получатель", "userunknown"},
		{"5.0.0", "550", "550 ユーザが存在しません", "userunknown"},
		{"5.0.0", "550", "550 該当するユーザーがいません", "userunknown"},
		{"5.0.0", "550", "550 收件人不存在", "userunknown"},
		{"5.0.0", "550", "550 该用户不存在", "userunknown"},
		{"5.0.0", "550", "550 收件人邮箱地址不存在", "userunknown"},
		{"5.0.0", "550", "550 账户不存在", "userunknown"},
		{"5.0.0", "550", "550 Mailbox disabled", "suspend"},
		{"5.0.0", "550", "550 Account deactivated", "suspend"},
		{"5.0.0", "550", "550 account has been disabled", "suspend"},
		{"5.0.0", "550", "550 Compte désactivé", "suspend"},
		{"5.0.0", "550", "550 Cuenta desactivada", "suspend"},
		{"5.0.0", "550", "550 Ящик заблокирован", "suspend"},
		{"5.0.0", "550", "550 Host unknown", "hostunknown"},
		{"5.0.0", "550", "550 Domaine inexistant", "hostunknown"},
		{"5.0.0", "550", "550 Dominio no existe", "hostunknown"},
		{"5.0.0", "550", "550 Domain existiert nicht", "hostunknown"},
		{"5.0.0", "554", "554 Your access to this mail system has been rejected due to the sending MTA's poor reputation", "badreputation"},
		{"5.0.0", "550", "550 Sender IP reputation is too low", "badreputation"},
		{"5.0.0", "554", "554 IP address is on a DNSBL", "blocked"},
		{"5.0.0", "554", "554 rejected because 192.0.2.1 is in a black list at b.barracudacentral.org", "blocked"},
		{"5.0.0", "550", "550 Mail from your IP is refused", "blocked"},
		{"5.0.0", "550", "550 Message rejected: spam content", "spamdetected"},
		{"5.0.0", "550", "550 Your message looks like spam", "spamdetected"},
		{"5.0.0", "550", "550 Spam message rejected", "spamdetected"},
		{"5.0.0", "550", "550 Message classified as spam", "spamdetected"},
		{"5.0.0", "550", "550 Unsolicited bulk email rejected", "spamdetected"},
		{"5.0.0", "554", "554 Relaying is not allowed", "norelaying"},
		{"5.0.0", "550", "550 Unable to relay", "norelaying"},
		{"5.0.0", "550", "550 Relay not allowed", "norelaying"},
		{"4.0.0", "421", "421 Too many connections from your host", "toomanyconn"},
		{"4.0.0", "450", "450 Sending rate exceeded", "speeding"},
		{"4.0.0", "450", "450 you are sending too fast", "speeding"},
		{"4.0.0", "451", "451 Throttled", "speeding"},
		{"5.0.0", "550", "550 DKIM signature verification failed", "authfailure"},
		{"5.0.0", "550", "550 SPF validation failed", "authfailure"},
		{"5.0.0", "550", "550 Sender Policy Framework check failed", "authfailure"},
		{"5.0.0", "550", "550 Client host has no PTR record", "requireptr"},
		{"5.0.0", "550", "550 cannot find your hostname", "requireptr"},
		{"5.0.0", "550", "550 Infected with virus", "virusdetected"},
		{"5.0.0", "552", "552 Attachment type not allowed", "policyviolation"},
		{"5.0.0", "550", "550 5.2.1 <x@att.net>... Addressee unknown, relay=[192.0.2.1]", "userunknown"},
		{"5.0.0", "553", "553 Relaying disallowed. Invalid Domain - example.com", "norelaying"},
		{"5.0.0", "", "Illegal host/domain name found", "hostunknown"},
		{"5.0.0", "", "The users mailfolder is over the allowed quota (size).", "mailboxfull"},
	}
	for _, c := range cases {
		got := ReasonOf(Evidence{Status: c.st, ReplyCode: c.rc, Diagnostic: c.diag, Command: "RCPT"})
		if got != c.want {
			t.Errorf("%-60q want %-14s got %s", c.diag, c.want, got)
		}
	}
}
