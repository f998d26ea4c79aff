package mailbox

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"testing"

	"github.com/rebound-hq/rebound/internal/dbtest"
	"github.com/rebound-hq/rebound/internal/secret"
	"github.com/rebound-hq/rebound/internal/store"
)

func newService(t *testing.T, p *Policy) (*Service, int64) {
	t.Helper()
	db := dbtest.New(t)
	var ws int64
	if err := db.Raw(`INSERT INTO workspaces (name) VALUES ('w') RETURNING id`).Scan(&ws).Error; err != nil {
		t.Fatal(err)
	}
	kr, err := secret.NewKeyring(map[string][]byte{"old": bytes.Repeat([]byte{1}, 32), "new": bytes.Repeat([]byte{2}, 32)}, "new")
	if err != nil {
		t.Fatal(err)
	}
	return &Service{DB: db, Keyring: kr, Policy: p}, ws
}

func TestServiceCRUD(t *testing.T) {
	srv := startMemServer(t, true)
	host, port := hostPort(t, srv.addr)
	svc, ws := newService(t, &Policy{AllowPrivateHosts: true, TLSConfig: &tls.Config{RootCAs: srv.pool}})
	ctx := context.Background()
	in := Input{Name: "sales", Settings: Settings{Host: host, Port: port, Username: testUser, Folders: []string{"INBOX"}},
		Credentials: Credentials{Password: testPassword}}

	if err := svc.TestConnection(ctx, in.Settings, in.Credentials); err != nil {
		t.Fatalf("TestConnection: %v", err)
	}
	bad := in.Credentials
	bad.Password = "wrong"
	if err := svc.TestConnection(ctx, in.Settings, bad); !errors.Is(err, ErrAuth) {
		t.Fatalf("TestConnection with a wrong password = %v, want ErrAuth", err)
	}

	v, err := svc.Create(ctx, ws, in)
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != store.MailboxActive || v.Settings.Port != port || v.Settings.TLS != TLSImplicit || v.Name != "sales" || v.Settings.LookbackDays != 30 {
		t.Fatalf("created %+v", v)
	}
	var sealed []byte
	svc.DB.Raw(`SELECT secret_sealed FROM mailboxes WHERE id = ?`, v.ID).Scan(&sealed)
	if len(sealed) == 0 || bytes.Contains(sealed, []byte(testPassword)) {
		t.Fatalf("stored secret %q is empty or holds the password", sealed)
	}
	if err := svc.TestMailbox(ctx, ws, v.ID); err != nil {
		t.Fatalf("TestMailbox: %v", err)
	}
	if _, err := svc.Get(ctx, ws+1, v.ID); !IsNotFound(err) {
		t.Fatalf("Get from another workspace = %v, want not found", err)
	}

	// auth_error ends when the credentials change.
	svc.DB.Exec(`UPDATE mailboxes SET status = 'auth_error', last_error = 'x', consecutive_failures = 3 WHERE id = ?`, v.ID)
	name := "sales EU"
	v, err = svc.Update(ctx, ws, v.ID, Patch{Name: &name})
	if err != nil || v.Status != store.MailboxAuthError || v.Name != name {
		t.Fatalf("rename kept status? %+v, %v", v, err)
	}
	creds := Credentials{Password: testPassword}
	v, err = svc.Update(ctx, ws, v.ID, Patch{Credentials: &creds})
	if err != nil || v.Status != store.MailboxActive || v.ConsecutiveFailures != 0 || v.LastError != "" {
		t.Fatalf("after new credentials: %+v, %v", v, err)
	}
	// New settings keep the stored password.
	st := v.Settings
	st.Folders = []string{"INBOX", "Archive"}
	st.ProcessedAction, st.ProcessedTarget = ProcessedLabel, "$Rebound"
	if v, err = svc.Update(ctx, ws, v.ID, Patch{Settings: &st}); err != nil || len(v.Settings.Folders) != 2 || v.Settings.ProcessedAction != ProcessedLabel {
		t.Fatalf("update settings: %+v, %v", v, err)
	}
	row, _ := store.GetMailbox(ctx, svc.DB, ws, v.ID)
	if _, c, err := svc.Load(row); err != nil || c.Password != testPassword {
		t.Fatalf("Load after settings update: %+v, %v", c, err)
	}
	// A bad update changes nothing.
	st.Port = 0
	st.Host = ""
	var ve *ValidationError
	if _, err := svc.Update(ctx, ws, v.ID, Patch{Settings: &st}); !errors.As(err, &ve) || ve.Field != "host" {
		t.Fatalf("bad update = %v, want invalid host", err)
	}
	paused := true
	if v, err = svc.Update(ctx, ws, v.ID, Patch{Paused: &paused}); err != nil || v.Status != store.MailboxPaused {
		t.Fatalf("pause: %+v, %v", v, err)
	}
	paused = false
	if v, err = svc.Update(ctx, ws, v.ID, Patch{Paused: &paused}); err != nil || v.Status != store.MailboxActive {
		t.Fatalf("resume: %+v, %v", v, err)
	}

	list, err := svc.List(ctx, ws)
	if err != nil || len(list) != 1 {
		t.Fatalf("List = %v, %v", list, err)
	}
	if err := svc.Delete(ctx, ws, v.ID); err != nil {
		t.Fatal(err)
	}
	if err := svc.Delete(ctx, ws, v.ID); !IsNotFound(err) {
		t.Fatalf("second Delete = %v, want not found", err)
	}
}

func TestServiceRefusesPrivateHostAndRotatesKeys(t *testing.T) {
	svc, ws := newService(t, &Policy{})
	ctx := context.Background()
	_, err := svc.Create(ctx, ws, Input{Settings: Settings{Host: "127.0.0.1", Username: "u"}, Credentials: Credentials{Password: "p"}})
	if !errors.Is(err, ErrPrivateHost) {
		t.Fatalf("Create on loopback = %v, want ErrPrivateHost", err)
	}
	var n int64
	svc.DB.Raw(`SELECT count(*) FROM mailboxes`).Scan(&n)
	if n != 0 {
		t.Fatal("refused mailbox was stored")
	}

	// A mailbox sealed under the old key still opens, and Reseal moves it
	// to the active key.
	svc.Policy = &Policy{AllowPrivateHosts: true}
	old, _ := secret.NewKeyring(map[string][]byte{"old": bytes.Repeat([]byte{1}, 32)}, "old")
	active := svc.Keyring
	svc.Keyring = old
	v, err := svc.Create(ctx, ws, Input{Settings: Settings{Host: "127.0.0.1", Username: "u"}, Credentials: Credentials{Password: "p"}})
	if err != nil {
		t.Fatal(err)
	}
	svc.Keyring = active
	row, _ := store.GetMailbox(ctx, svc.DB, ws, v.ID)
	if row.SecretKeyID != "old" || !active.NeedsReseal(string(row.SecretSealed)) {
		t.Fatalf("key id %q", row.SecretKeyID)
	}
	_, c, err := svc.Load(row)
	if err != nil || c.Password != "p" {
		t.Fatalf("Load under rotated keyring: %v", err)
	}
	if err := svc.Reseal(ctx, row, c); err != nil {
		t.Fatal(err)
	}
	row, _ = store.GetMailbox(ctx, svc.DB, ws, v.ID)
	if row.SecretKeyID != "new" || active.NeedsReseal(string(row.SecretSealed)) {
		t.Fatalf("after Reseal key id %q", row.SecretKeyID)
	}
	// Sealed credentials are bound to their workspace.
	row.WorkspaceID++
	if _, _, err := svc.Load(row); !errors.Is(err, secret.ErrDecrypt) {
		t.Fatalf("Load in another workspace = %v, want ErrDecrypt", err)
	}
}
