package store

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
)

// ErrNotFound reports that the requested row does not exist in the caller's
// workspace.
var ErrNotFound = errors.New("store: not found")

// ErrConflict reports that a write violated a unique or exclusion constraint
// (the row already exists) or a foreign key (it refers to a missing row).
var ErrConflict = errors.New("store: conflict")

// PostgreSQL error codes (Appendix A of the PostgreSQL manual) that the store
// translates.
const (
	pgUniqueViolation     = "23505"
	pgForeignKeyViolation = "23503"
	pgExclusionViolation  = "23P01"
	pgDeadlockDetected    = "40P01"
	pgSerializationFail   = "40001"
)

// Translate is the one place where driver errors become store errors: it
// wraps gorm.ErrRecordNotFound as ErrNotFound and unique, exclusion and
// foreign-key violations as ErrConflict, keeping the original error in the
// chain (errors.As still finds the *pgconn.PgError). op names the failed step
// ("create lead") and prefixes the message. A nil err returns nil.
func Translate(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return fmt.Errorf("store: %s: %w", op, errors.Join(ErrNotFound, err))
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case pgUniqueViolation, pgExclusionViolation, pgForeignKeyViolation:
			return fmt.Errorf("store: %s: %w", op, errors.Join(ErrConflict, err))
		}
	}
	return fmt.Errorf("store: %s: %w", op, err)
}

// IsRetryable reports whether err is a deadlock or serialization failure
// after which the whole transaction may be run again.
func IsRetryable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == pgDeadlockDetected || pgErr.Code == pgSerializationFail
	}
	return false
}
