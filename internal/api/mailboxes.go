package api

import (
	"context"

	"github.com/rebound-hq/rebound/internal/store"
)

// MailboxService is what the mailbox routes need beyond plain reads:
// sealing credentials, testing a connection and queueing a sync live in
// internal/mailbox and internal/tasks, which cmd/api wires in.
type MailboxService interface {
	// Create validates in, seals its credentials and stores the mailbox.
	Create(ctx context.Context, workspaceID int64, in MailboxInput) (store.Mailbox, error)
	// Update applies the present fields of in to mailbox id.
	Update(ctx context.Context, workspaceID, id int64, in MailboxInput) (store.Mailbox, error)
	// Test connects and logs in with mailbox id's stored settings.
	Test(ctx context.Context, workspaceID, id int64) (MailboxTestResult, error)
	// EnqueueSync queues a sync of mailbox id now; queued is false when one
	// was already queued.
	EnqueueSync(ctx context.Context, workspaceID, id int64) (queued bool, err error)
}

// MailboxInput is a create or update request (nil fields are absent).
type MailboxInput struct{}

// MailboxTestResult is the outcome of a connection test.
type MailboxTestResult struct {
	OK         bool
	Error      string
	AuthFailed bool
}
