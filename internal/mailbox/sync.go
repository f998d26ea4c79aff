package mailbox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// Message is one message fetched whole (BODY.PEEK[]) for the Recorder.
type Message struct {
	Folder       string
	UIDValidity  uint32
	UID          uint32
	Raw          []byte    // the message as the server serves it (CRLF lines)
	InternalDate time.Time // IMAP INTERNALDATE: when the server received it
	Truncated    bool      // Raw holds only the first SyncOptions.MaxMessageBytes
}

// Checkpoint is how far a folder has been synced: every message with a UID
// up to LastUID under UIDValidity has been looked at. A UID means nothing
// without its UIDVALIDITY (RFC 9051 §2.3.1.1).
type Checkpoint struct {
	Folder      string
	UIDValidity uint32
	LastUID     uint32
}

// BatchResult is what a Recorder reports for a committed batch.
type BatchResult struct {
	// BounceUIDs are the UIDs of messages recorded as bounces (the decoder
	// found at least one failed recipient); the optional processed action
	// applies to them only.
	BounceUIDs []uint32
}

// Recorder stores a batch of fetched messages and the folder checkpoint in
// one transaction. Either both are stored or neither; the sync advances its
// own notion of progress only on success. msgs may be empty, in which case
// only the checkpoint moves. Recording must be idempotent per message
// (dedupe), because a UIDVALIDITY change makes the sync send messages again.
type Recorder interface {
	RecordBatch(ctx context.Context, msgs []Message, cp Checkpoint) (BatchResult, error)
}

// SyncOptions tune one sync. A nil *SyncOptions means the defaults.
type SyncOptions struct {
	// Checkpoints by folder name; a folder without one gets a first sync
	// bounded by the settings' look-back window.
	Checkpoints map[string]Checkpoint
	// BatchSize is the number of candidate messages per recorded batch;
	// 0 means 500.
	BatchSize int
	// MaxMessageBytes caps how much of a message is fetched (a partial
	// fetch, RFC 9051 §6.4.5 <origin.size>); 0 means 10 MiB. Reports carry
	// their delivery-status parts before any large attachment.
	MaxMessageBytes int64
	// MaxBatchBytes caps the bytes of the messages fetched whole for one
	// recorded batch (each counted up to MaxMessageBytes); a batch holds
	// at least one message whatever its size. 0 means 64 MiB. Without it a
	// batch of bounces returning large originals is held in memory at once
	// (500 x 10 MiB), and a worker that runs out of memory on it fails the
	// same batch on every sync, so the folder never moves again.
	MaxBatchBytes int64
	// Now gives the time; nil means time.Now.
	Now func() time.Time
	// Logger receives progress; nil discards.
	Logger *slog.Logger
}

// FolderStats describe the sync of one folder.
type FolderStats struct {
	Folder      string
	UIDValidity uint32
	// Rescan is true when the folder had no checkpoint or its UIDVALIDITY
	// changed, so the look-back window was searched.
	Rescan     bool
	Seen       int    // candidates looked at (headers fetched), in committed batches
	Fetched    int    // messages fetched whole, in committed batches
	Bounces    int    // messages recorded as bounces
	Processed  int    // bounces moved or labelled
	LastUID    uint32 // checkpoint after the sync
	Candidates int    // messages the search returned above the checkpoint
}

// Stats describe a whole sync. On error they count what was committed
// before it.
type Stats struct {
	Folders []FolderStats
	Seen    int
	Fetched int
	Bounces int
}

func (o *SyncOptions) withDefaults() SyncOptions {
	var out SyncOptions
	if o != nil {
		out = *o
	}
	if out.BatchSize <= 0 {
		out.BatchSize = 500
	}
	if out.MaxMessageBytes <= 0 {
		out.MaxMessageBytes = 10 << 20
	}
	if out.MaxBatchBytes <= 0 {
		out.MaxBatchBytes = 64 << 20
	}
	if out.Now == nil {
		out.Now = time.Now
	}
	if out.Logger == nil {
		out.Logger = slog.New(slog.DiscardHandler)
	}
	return out
}

// Sync syncs every folder of the connection's settings, in order, through
// rec. It opens each folder read-only (EXAMINE) and fetches with BODY.PEEK,
// so no flag changes, unless the settings' processed action is move or
// label, which then applies to the recorded bounces after their batches
// commit. It stops at the first error, returning it with the stats of what
// was committed; the next sync resumes from the last committed checkpoint.
func (c *Conn) Sync(ctx context.Context, rec Recorder, opts *SyncOptions) (Stats, error) {
	o := opts.withDefaults()
	var st Stats
	for _, folder := range c.settings.Folders {
		fs, err := c.syncFolder(ctx, rec, folder, &o)
		st.Folders = append(st.Folders, fs)
		st.Seen += fs.Seen
		st.Fetched += fs.Fetched
		st.Bounces += fs.Bounces
		if err != nil {
			return st, fmt.Errorf("mailbox: sync %q: %w", folder, ctxErr(ctx, err))
		}
	}
	return st, nil
}

var headerSection = &imap.FetchItemBodySection{
	Specifier:    imap.PartSpecifierHeader,
	HeaderFields: triageFields,
	Peek:         true,
}

func (c *Conn) syncFolder(ctx context.Context, rec Recorder, folder string, o *SyncOptions) (FolderStats, error) {
	fs := FolderStats{Folder: folder}
	sel, err := c.c.Select(folder, &imap.SelectOptions{ReadOnly: true}).Wait()
	if err != nil {
		return fs, fmt.Errorf("examine: %w", err)
	}
	fs.UIDValidity = sel.UIDValidity
	cp, ok := o.Checkpoints[folder]
	var last uint32
	criteria := &imap.SearchCriteria{}
	if !ok || cp.UIDValidity != sel.UIDValidity {
		fs.Rescan = true
		if ok {
			o.Logger.Info("mailbox: UIDVALIDITY changed, rescanning look-back window",
				"folder", folder, "old", cp.UIDValidity, "new", sel.UIDValidity)
		}
		// SINCE compares the internal date, day granularity (RFC 9051 §6.4.4.1).
		criteria.Since = o.Now().Add(-c.settings.Lookback())
	} else {
		last = cp.LastUID
		fs.LastUID = last
		if sel.UIDNext != 0 && uint32(sel.UIDNext) <= last+1 {
			return fs, nil // nothing arrived since the checkpoint
		}
		var set imap.UIDSet
		set.AddRange(imap.UID(last+1), 0) // last+1:*
		criteria.UID = []imap.UIDSet{set}
	}
	if sel.NumMessages == 0 && !fs.Rescan {
		return fs, nil
	}
	var uids []uint32
	if sel.NumMessages > 0 {
		data, err := c.c.UIDSearch(criteria, nil).Wait()
		if err != nil {
			return fs, fmt.Errorf("uid search: %w", err)
		}
		for _, u := range data.AllUIDs() {
			// "n:*" always matches the highest UID, even below n (RFC 9051 §6.4.4).
			if uint32(u) > last {
				uids = append(uids, uint32(u))
			}
		}
		slices.Sort(uids)
	}
	fs.Candidates = len(uids)

	var bounces []uint32
	for start := 0; start < len(uids); {
		if err := ctx.Err(); err != nil {
			return fs, err
		}
		chunk := uids[start:min(start+o.BatchSize, len(uids))]
		msgs, covered, err := c.fetchBatch(folder, sel.UIDValidity, chunk, o)
		if err != nil {
			return fs, err
		}
		// The batch may stop short of the chunk (MaxBatchBytes): the
		// checkpoint covers only the UIDs looked at, the rest comes next.
		chunk = chunk[:covered]
		start += covered
		next := Checkpoint{Folder: folder, UIDValidity: sel.UIDValidity, LastUID: chunk[len(chunk)-1]}
		res, err := rec.RecordBatch(ctx, msgs, next)
		if err != nil {
			return fs, fmt.Errorf("record batch: %w", err)
		}
		fs.LastUID = next.LastUID
		fs.Seen += len(chunk)
		fs.Fetched += len(msgs)
		fs.Bounces += len(res.BounceUIDs)
		bounces = append(bounces, res.BounceUIDs...)
		o.Logger.Debug("mailbox: batch committed", "folder", folder, "last_uid", next.LastUID,
			"seen", len(chunk), "fetched", len(msgs), "bounces", len(res.BounceUIDs))
	}
	// After a rescan, move the checkpoint past everything that existed when
	// the folder was opened (older messages stay outside the window), and
	// store the new UIDVALIDITY even when nothing matched.
	if fs.Rescan {
		top := fs.LastUID
		if sel.UIDNext > 1 && uint32(sel.UIDNext)-1 > top {
			top = uint32(sel.UIDNext) - 1
		}
		if top > fs.LastUID || len(uids) == 0 {
			next := Checkpoint{Folder: folder, UIDValidity: sel.UIDValidity, LastUID: top}
			if _, err := rec.RecordBatch(ctx, nil, next); err != nil {
				return fs, fmt.Errorf("record checkpoint: %w", err)
			}
			fs.LastUID = top
		}
	}
	if len(bounces) > 0 && c.settings.ProcessedAction != ProcessedNone {
		n, err := c.applyProcessed(folder, bounces)
		fs.Processed = n
		if err != nil {
			return fs, fmt.Errorf("%s processed bounces: %w", c.settings.ProcessedAction, err)
		}
	}
	return fs, nil
}

// fetchBatch fetches the triage headers of uids (ascending), then the whole
// of the likely bounces, all with PEEK. Messages expunged meanwhile are
// skipped. It returns the messages and how many of uids the batch covers:
// all of them, or fewer when the likely messages exceed o.MaxBatchBytes
// (the batch then ends before the first likely message that does not fit,
// and holds at least one).
func (c *Conn) fetchBatch(folder string, uidValidity uint32, uids []uint32, o *SyncOptions) ([]Message, int, error) {
	set := imap.UIDSetNum(toUIDs(uids)...)
	cmd := c.c.Fetch(set, &imap.FetchOptions{
		UID:          true,
		RFC822Size:   true,
		InternalDate: true,
		BodySection:  []*imap.FetchItemBodySection{headerSection},
	})
	type candidate struct {
		uid  uint32
		size int64
		date time.Time
	}
	var likely []candidate
	err := eachFetched(cmd, func(buf *imapclient.FetchMessageBuffer) {
		if triageFetched(buf).Likely {
			likely = append(likely, candidate{uint32(buf.UID), buf.RFC822Size, buf.InternalDate})
		}
	})
	if err != nil {
		return nil, 0, fmt.Errorf("fetch headers: %w", err)
	}
	covered := len(uids)
	slices.SortFunc(likely, func(a, b candidate) int { return cmp.Compare(a.uid, b.uid) })
	var total int64
	for i, l := range likely {
		total += min(max(l.size, 0), o.MaxMessageBytes)
		if i > 0 && total > o.MaxBatchBytes {
			at, _ := slices.BinarySearch(uids, l.uid)
			covered = max(at, 1)
			likely = likely[:i]
			break
		}
	}
	if len(likely) == 0 {
		return nil, covered, nil
	}

	var small, large imap.UIDSet
	info := make(map[uint32]candidate, len(likely))
	for _, l := range likely {
		info[l.uid] = l
		if l.size > o.MaxMessageBytes {
			large.AddNum(imap.UID(l.uid))
		} else {
			small.AddNum(imap.UID(l.uid))
		}
	}
	msgs := make([]Message, 0, len(likely))
	for _, part := range []struct {
		set     imap.UIDSet
		section *imap.FetchItemBodySection
	}{
		{small, &imap.FetchItemBodySection{Peek: true}},
		{large, &imap.FetchItemBodySection{Peek: true, Partial: &imap.SectionPartial{Offset: 0, Size: o.MaxMessageBytes}}},
	} {
		if len(part.set) == 0 {
			continue
		}
		cmd := c.c.Fetch(part.set, &imap.FetchOptions{UID: true, BodySection: []*imap.FetchItemBodySection{part.section}})
		err := eachFetched(cmd, func(buf *imapclient.FetchMessageBuffer) {
			l, ok := info[uint32(buf.UID)]
			body := bodyOf(buf, part.section)
			if !ok || body == nil {
				return
			}
			msgs = append(msgs, Message{
				Folder: folder, UIDValidity: uidValidity, UID: l.uid, Raw: body,
				InternalDate: l.date, Truncated: part.section.Partial != nil,
			})
		})
		if err != nil {
			return nil, 0, fmt.Errorf("fetch bodies: %w", err)
		}
	}
	slices.SortFunc(msgs, func(a, b Message) int { return cmp.Compare(a.UID, b.UID) })
	return msgs, covered, nil
}

// triageFetched triages the header block of one fetched message. A server
// that echoes the HEADER.FIELDS list other than as asked (fewer fields,
// another order) answers a section go-imap does not match to the request:
// any header section is then triaged instead, and a message whose headers
// did not come back at all counts as likely, since the checkpoint passes
// every message the triage turns down and nothing would fetch it again.
func triageFetched(buf *imapclient.FetchMessageBuffer) Triage {
	if h := buf.FindBodySection(headerSection); h != nil {
		return TriageHeader(h)
	}
	for _, s := range buf.BodySection {
		if s.Section != nil && s.Section.Specifier == imap.PartSpecifierHeader && len(s.Section.Part) == 0 && s.Bytes != nil {
			return TriageHeader(s.Bytes)
		}
	}
	return Triage{true, "header section missing"}
}

// bodyOf returns the whole-message section of a body FETCH. go-imap
// matches a partial response by its origin, so a server that answers a
// partial fetch with BODY[] (no <0>), or the reverse, would otherwise leave
// a likely bounce without a body, skipped as if expunged while the
// checkpoint passes it. nil when the response holds no whole-message
// section (the message was expunged between the two fetches).
func bodyOf(buf *imapclient.FetchMessageBuffer, section *imap.FetchItemBodySection) []byte {
	if b := buf.FindBodySection(section); b != nil {
		return b
	}
	for _, s := range buf.BodySection {
		if s.Section != nil && s.Section.Specifier == imap.PartSpecifierNone && len(s.Section.Part) == 0 && s.Bytes != nil {
			return s.Bytes
		}
	}
	return nil
}

// eachFetched buffers each message of cmd in memory (Collect) and passes it
// to fn, skipping unsolicited FETCH responses (UID 0: a flag update for
// another message), then closes cmd. It returns the first error of
// either; cmd is closed in every case.
func eachFetched(cmd *imapclient.FetchCommand, fn func(*imapclient.FetchMessageBuffer)) error {
	for {
		m := cmd.Next()
		if m == nil {
			break
		}
		buf, err := m.Collect()
		if err != nil {
			cmd.Close()
			return err
		}
		if buf.UID == 0 {
			continue
		}
		fn(buf)
	}
	return cmd.Close()
}

// applyProcessed moves or labels the given messages. The folder is
// re-opened read-write for that (SELECT), the only time the sync does so.
func (c *Conn) applyProcessed(folder string, uids []uint32) (int, error) {
	if _, err := c.c.Select(folder, nil).Wait(); err != nil {
		return 0, fmt.Errorf("select: %w", err)
	}
	set := imap.UIDSetNum(toUIDs(uids)...)
	switch c.settings.ProcessedAction {
	case ProcessedMove:
		if _, err := c.c.Move(set, c.settings.ProcessedTarget).Wait(); err != nil {
			return 0, err
		}
	case ProcessedLabel:
		err := c.c.Store(set, &imap.StoreFlags{
			Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.Flag(c.settings.ProcessedTarget)},
		}, nil).Close()
		if err != nil {
			return 0, err
		}
	default:
		return 0, errors.New("unknown processed action")
	}
	return len(uids), nil
}

func toUIDs(u []uint32) []imap.UID {
	out := make([]imap.UID, len(u))
	for i, v := range u {
		out[i] = imap.UID(v)
	}
	return out
}
