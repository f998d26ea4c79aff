package dsn

// DecodeError reports a message Decode could not read. Part names where the
// failure sits ("message", "header", "mime", "delivery-status", ...) and
// Reason says what was wrong, so that a caller can store the raw message as
// undecoded together with the reason.
type DecodeError struct {
	Part   string
	Reason string
}

// Error implements error.
func (e *DecodeError) Error() string {
	return "dsn: decode " + e.Part + ": " + e.Reason
}

var _ error = (*DecodeError)(nil)
