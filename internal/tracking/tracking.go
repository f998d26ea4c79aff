// Package tracking turns fetched bounce messages into the facts Rebound
// shows: it stores each message once, decodes and classifies it (dsn,
// classify), matches every result to its campaign and lead, and writes the
// bounce event, the lead's timeline entry, the lead policy's effect, the
// suppression and the report counters in one database transaction.
//
// Exactly once: a message is identified per workspace by DedupeHash, and
// raw_messages is unique on it; every other write of a message happens only
// in the transaction that inserted its raw row, so re-recording a message,
// recording a second copy of it from another folder, or two workers
// recording it at once change nothing the second time. Recording takes a
// per-workspace advisory lock so concurrent batches of one workspace apply
// the lead policy and counter deltas one after the other.
//
// Nothing lost: a message the decoder cannot read is stored with
// decode_status "undecoded" and the error, one that is not a bounce as
// "not_bounce", and a result that matches no lead becomes an unmatched event.
// Reprocess re-decodes stored messages with the current decoder and corrects
// events, timelines, lead states and counters.
package tracking

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/textproto"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/classify"
	"github.com/rebound-hq/rebound/internal/codes"
	"github.com/rebound-hq/rebound/internal/dsn"
	"github.com/rebound-hq/rebound/internal/store"
)

// Incoming is one message fetched from a mailbox folder. Raw is the whole
// message as fetched (RFC 5322, LF or CRLF). ReceivedAt is the server's
// INTERNALDATE (zero: the time of recording); it becomes the time of the
// message's events. MailboxID may be 0 for a message that did not come from
// a connected mailbox (tests, imports).
type Incoming struct {
	WorkspaceID int64
	MailboxID   int64
	Folder      string
	UIDValidity uint32
	UID         uint32
	Raw         []byte
	ReceivedAt  time.Time
}

// Checkpoint is the sync position of one mailbox folder: every message up
// to LastUID under UIDValidity has been recorded (RFC 9051 §2.3.1.1).
type Checkpoint struct {
	MailboxID   int64
	Folder      string
	UIDValidity uint32
	LastUID     uint32
}

// Outcome is what recording one Incoming did.
type Outcome struct {
	// RawMessageID is the stored message (the earlier copy's ID for a
	// duplicate).
	RawMessageID int64
	// Duplicate is true when the workspace already held this message (or an
	// earlier message of the same batch was a copy of it): nothing changed.
	Duplicate bool
	// DecodeStatus is store.DecodeDecoded, DecodeUndecoded or DecodeNotBounce;
	// DecodeError is the decoder's error for undecoded messages.
	DecodeStatus string
	DecodeError  string
	// Events are the bounce events created, one per decoded result (none
	// for a duplicate).
	Events []EventOutcome
}

// EventOutcome describes one recorded bounce event.
type EventOutcome struct {
	EventID        int64
	Kind           string // dsn.Kind values except not_bounce
	Class          string // soft, hard or ""
	Reason         string
	Label          string
	AddressInvalid bool
	Recipient      string
	// CampaignID and LeadID are 0 when unmatched (LeadID alone is 0 for a
	// campaign-only header match). MatchedBy is header, message_id, verp,
	// recipient or "".
	CampaignID int64
	LeadID     int64
	MatchedBy  string
	// Effect is what the lead policy did ("stopped: hard_bounce", "retry
	// later", ...), Suppressed whether the address was suppressed.
	Effect     string
	Suppressed bool
}

// Options configure a Service; zero fields take the defaults.
type Options struct {
	// Now returns the current time (default time.Now).
	Now func() time.Time
	// CampaignHeader and LeadHeader name the header fields of the returned
	// original that carry campaign and lead identifiers (the numeric ID or
	// the sending side's external ID). Defaults X-Rebound-Campaign and
	// X-Rebound-Lead.
	CampaignHeader string
	LeadHeader     string
	// VERPPrefix is the local-part prefix of VERP return addresses
	// (prefix+TOKEN@domain). Default "bounces".
	VERPPrefix string
	// Decode and Classify default to dsn.Decode and classify.Classify.
	Decode   func(raw []byte) ([]dsn.Result, error)
	Classify func(dsn.Result) classify.Verdict
	// CodeEntry names the knowledge-base entry explaining a result ("" for
	// none). Default: codes.ForResult's entry ID.
	CodeEntry func(dsn.Result) string
	// MaxAttempts bounds the runs of a transaction that fails on a deadlock
	// or serialization error (default 5).
	MaxAttempts int
}

// Service records messages into the database.
type Service struct {
	db   *gorm.DB
	opts Options
}

// New returns a Service over db (a PostgreSQL handle migrated to the
// current schema).
func New(db *gorm.DB, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.CampaignHeader == "" {
		opts.CampaignHeader = "X-Rebound-Campaign"
	}
	if opts.LeadHeader == "" {
		opts.LeadHeader = "X-Rebound-Lead"
	}
	opts.CampaignHeader = textproto.CanonicalMIMEHeaderKey(opts.CampaignHeader)
	opts.LeadHeader = textproto.CanonicalMIMEHeaderKey(opts.LeadHeader)
	if opts.VERPPrefix == "" {
		opts.VERPPrefix = "bounces"
	}
	if opts.Decode == nil {
		opts.Decode = dsn.Decode
	}
	if opts.Classify == nil {
		opts.Classify = classify.Classify
	}
	if opts.CodeEntry == nil {
		opts.CodeEntry = codeEntry
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 5
	}
	return &Service{db: db, opts: opts}
}

// Record records one message in one transaction; see RecordBatch.
func (s *Service) Record(ctx context.Context, in Incoming) (Outcome, error) {
	out, err := s.RecordBatch(ctx, []Incoming{in}, nil)
	if err != nil {
		return Outcome{}, err
	}
	return out[0], nil
}

// RecordBatch records msgs and advances cp (nil: no checkpoint) in ONE
// transaction: either every message is recorded and the checkpoint moved,
// or nothing is (the error says why; retrying the batch is safe). Outcomes
// are in the order of msgs. Decoding problems are not errors: such messages
// are stored as undecoded. The transaction is re-run on deadlock or
// serialization failures.
func (s *Service) RecordBatch(ctx context.Context, msgs []Incoming, cp *Checkpoint) ([]Outcome, error) {
	now := s.opts.Now().UTC()
	for i, in := range msgs {
		if in.WorkspaceID == 0 {
			return nil, fmt.Errorf("message %d: %w", i, errNoWorkspace)
		}
	}
	preps, err := s.prepareAll(ctx, msgs, now)
	if err != nil {
		return nil, err
	}
	var outcomes []Outcome
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		outcomes = make([]Outcome, len(msgs))
		for _, group := range byWorkspace(preps) {
			if err := s.recordWorkspace(ctx, tx, now, group, outcomes); err != nil {
				return err
			}
		}
		if cp != nil {
			if err := store.UpsertCheckpoint(ctx, tx, cp.MailboxID, cp.Folder, cp.UIDValidity, cp.LastUID, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return outcomes, nil
}

// codeEntry returns the internal/codes entry that explains r, or "".
func codeEntry(r dsn.Result) string {
	if e, ok := codes.ForResult(r.Status, r.ReplyCode, r.Diagnostic, string(r.Provider)); ok {
		return e.ID
	}
	return ""
}

// prepareAll hashes msgs, then compresses, decodes and classifies those
// whose work can be stored, outside the transaction, on up to GOMAXPROCS
// goroutines. A message the workspace already held before the batch (one
// query per workspace) and a later copy within the batch are only hashed:
// recording reads neither's content nor results, and raw messages are never
// deleted, so a re-sync of a whole folder decodes nothing twice.
func (s *Service) prepareAll(ctx context.Context, msgs []Incoming, now time.Time) ([]*prepared, error) {
	preps := make([]*prepared, len(msgs))
	inParallel(len(msgs), func(i int) {
		sum := DedupeHash(msgs[i].Raw)
		p := &prepared{pos: i, in: msgs[i], hash: hex.EncodeToString(sum[:]), receivedAt: msgs[i].ReceivedAt.UTC()}
		if msgs[i].ReceivedAt.IsZero() {
			p.receivedAt = now
		}
		preps[i] = p
	})
	type key struct {
		ws   int64
		hash string
	}
	work := make([]bool, len(preps))
	seen := map[key]bool{}
	for _, group := range byWorkspace(preps) {
		hashes := make([]string, len(group))
		for i, p := range group {
			hashes[i] = p.hash
		}
		stored, err := store.FindRawMessages(ctx, s.db, group[0].in.WorkspaceID, hashes)
		if err != nil {
			return nil, fmt.Errorf("tracking: %w", err)
		}
		for _, p := range group {
			k := key{p.in.WorkspaceID, p.hash}
			if _, ok := stored[p.hash]; ok {
				p.stored = true
			} else if !seen[k] {
				work[p.pos] = true
			}
			seen[k] = true
		}
	}
	errs := make([]error, len(preps))
	inParallel(len(preps), func(i int) {
		if !work[i] {
			return
		}
		p := preps[i]
		gz, err := compress(p.in.Raw)
		if err != nil {
			errs[i] = fmt.Errorf("tracking: message %d: %w", i, err)
			return
		}
		p.content = gz
		s.decodeInto(p, p.in.Raw)
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return preps, nil
}

// inParallel calls fn(i) for every i in [0, n) on up to GOMAXPROCS
// goroutines (one per 16 items), and returns when every call has.
func inParallel(n int, fn func(i int)) {
	workers := max(min(runtime.GOMAXPROCS(0), (n+15)/16), 1)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

// inTx runs fn in a transaction, again when it fails on a deadlock or a
// serialization failure.
func (s *Service) inTx(ctx context.Context, fn func(tx *gorm.DB) error) error {
	var err error
	for attempt := 1; ; attempt++ {
		err = s.db.WithContext(ctx).Transaction(fn)
		if err == nil || !store.IsRetryable(err) || attempt >= s.opts.MaxAttempts || ctx.Err() != nil {
			break
		}
		time.Sleep(time.Duration(attempt) * 10 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("tracking: %w", err)
	}
	return nil
}

// errNoWorkspace is returned for a message without a workspace.
var errNoWorkspace = errors.New("tracking: message has no workspace")
