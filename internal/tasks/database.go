package tasks

import (
	"context"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/logging"
)

// TypeDatabaseHousekeeping is the periodic PostgreSQL maintenance task:
// month partitions created ahead for the partitioned tables, and raw
// message bytes emptied past the retention (migration 00050).
const TypeDatabaseHousekeeping = "maintenance:database"

// DatabaseHousekeepingSchedule enqueues it at minute 37 of every hour (UTC).
// A wall-clock cron line, unlike "@every 1h" (counted from each scheduler's
// start), still fires when workers are redeployed more often than hourly.
const DatabaseHousekeepingSchedule = "37 * * * *"

// PartitionedTables are the tables partitioned by month of occurred_at.
var PartitionedTables = []string{"bounce_events", "lead_activities"}

// DefaultMonthsAhead is how many months after the current one get their
// partition in advance.
const DefaultMonthsAhead = 3

// purgeBatch is the number of raw messages emptied per statement, so the
// purge never holds many row locks or writes one huge transaction.
const purgeBatch = 1000

// NewDatabaseHousekeepingTask returns the task for QueueHousekeeping; its
// empty payload lets asynq.Unique collapse the copies several replicas'
// schedulers enqueue.
func NewDatabaseHousekeepingTask() *asynq.Task {
	return asynq.NewTask(TypeDatabaseHousekeeping, nil, asynq.Queue(QueueHousekeeping), asynq.MaxRetry(1))
}

// DatabaseHousekeeping handles TypeDatabaseHousekeeping.
type DatabaseHousekeeping struct {
	DB *gorm.DB
	// RawRetention is RAW_RETENTION: the bytes of messages received longer
	// ago are emptied (0 keeps them).
	RawRetention time.Duration
	// MonthsAhead is the number of months after the current one whose
	// partitions exist in advance (0 means DefaultMonthsAhead).
	MonthsAhead int
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// RegisterDatabaseHousekeeping registers h on w and schedules it hourly,
// unique for the hour across replicas.
func RegisterDatabaseHousekeeping(w *Worker, h *DatabaseHousekeeping) error {
	w.Handle(TypeDatabaseHousekeeping, h)
	return w.Schedule(DatabaseHousekeepingSchedule, NewDatabaseHousekeepingTask(), asynq.Unique(time.Hour))
}

func (h *DatabaseHousekeeping) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// ProcessTask creates the partitions ahead, then purges raw bytes; a
// failure of either fails the task (asynq retries it once, and the next
// hour's run starts over; both steps are idempotent).
func (h *DatabaseHousekeeping) ProcessTask(ctx context.Context, _ *asynq.Task) error {
	log := logging.FromContext(ctx)
	created, err := h.EnsurePartitions(ctx)
	if err != nil {
		return err
	}
	purged, err := h.PurgeRawContent(ctx)
	log.Info("tasks: database housekeeping", "partitions_created", created, "raw_messages_purged", purged, "err", err)
	return err
}

// EnsurePartitions creates the month partitions (UTC) of the current month
// and the MonthsAhead next ones of every partitioned table, where missing,
// through rebound_ensure_month_partition (which moves rows of such a month
// out of the default partition first). It returns how many it created.
func (h *DatabaseHousekeeping) EnsurePartitions(ctx context.Context) (int, error) {
	ahead := h.MonthsAhead
	if ahead <= 0 {
		ahead = DefaultMonthsAhead
	}
	now := h.now().UTC()
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	created := 0
	for _, table := range PartitionedTables {
		for m := 0; m <= ahead; m++ {
			var ok bool
			err := h.DB.WithContext(ctx).Raw(`SELECT rebound_ensure_month_partition(?::regclass, ?)`,
				table, first.AddDate(0, m, 0)).Scan(&ok).Error
			if err != nil {
				return created, fmt.Errorf("tasks: partition %s for %s: %w", table, first.AddDate(0, m, 0).Format("2006-01"), err)
			}
			if ok {
				created++
			}
		}
	}
	return created, nil
}

// PurgeRawContent empties the stored bytes of raw messages received before
// now minus RawRetention, in batches, and stamps content_purged_at; the
// rows (hash, decode status, size) and their events stay, so reports,
// timelines and deduplication are unchanged. Rows locked by a reprocessing
// run are skipped until the next run. It returns how many it emptied.
func (h *DatabaseHousekeeping) PurgeRawContent(ctx context.Context) (int64, error) {
	if h.RawRetention <= 0 {
		return 0, nil
	}
	now := h.now().UTC()
	cutoff := now.Add(-h.RawRetention)
	var total int64
	for {
		res := h.DB.WithContext(ctx).Exec(`
UPDATE raw_messages SET content = ''::bytea, content_purged_at = ?
WHERE id IN (SELECT id FROM raw_messages
             WHERE content_purged_at IS NULL AND received_at < ?
             ORDER BY received_at LIMIT ? FOR UPDATE SKIP LOCKED)`, now, cutoff, purgeBatch)
		if res.Error != nil {
			return total, fmt.Errorf("tasks: purge raw messages before %s: %w", cutoff.Format(time.RFC3339), res.Error)
		}
		total += res.RowsAffected
		if res.RowsAffected < purgeBatch {
			return total, nil
		}
	}
}
