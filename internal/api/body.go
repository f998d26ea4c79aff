package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"strings"

	"github.com/labstack/echo/v4"
)

// Request body size limits, enforced per route by the route table (bytes).
const (
	defaultBodyLimit = 1 << 20    // 1 MiB: every JSON body but the bulk routes
	bulkBodyLimit    = 32 << 20   // 32 MiB: bulk imports of up to 10,000 rows
	decodeBodyLimit  = 10_000_000 // 10 MB: POST /v1/decode (issue 5)
)

// jsonEncode writes v as JSON followed by a newline, without HTML escaping.
func jsonEncode(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// mediaType returns the request's media type, lower case, without
// parameters ("" when absent or unparsable).
func mediaType(c echo.Context) string {
	ct := c.Request().Header.Get(echo.HeaderContentType)
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return ""
	}
	return strings.ToLower(mt)
}

// decodeJSON reads the request body into v: the body must be
// application/json, one JSON value, with no field v does not declare. A
// wrong type names the field at fault.
func decodeJSON(c echo.Context, v any) error {
	if mt := mediaType(c); mt != echo.MIMEApplicationJSON {
		return errorf(CodeUnsupportedMedia, "the body must be application/json")
	}
	return decodeJSONFrom(c.Request().Body, v)
}

// decodeJSONFrom is decodeJSON without the media type check.
func decodeJSONFrom(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if dec.More() {
		return errorf(CodeMalformed, "the body holds more than one JSON value")
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return errorf(CodeMalformed, "the body holds data after the JSON value")
	}
	return nil
}

// jsonError translates an encoding/json decode error.
func jsonError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	var apiErr *Error
	switch {
	case errors.As(err, &apiErr):
		return err // the body limit reader's 413
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			return errorf(CodeMalformed, "the body must be a JSON %s", typeName(typeErr.Type.Kind().String()))
		}
		return invalidField("body", field, "must be "+typeName(typeErr.Type.Kind().String()))
	case errors.As(err, &syntaxErr):
		return errorf(CodeMalformed, "invalid JSON at byte %d", syntaxErr.Offset)
	case errors.Is(err, io.EOF):
		return errorf(CodeMalformed, "the body is empty")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errorf(CodeMalformed, "the JSON body ends early")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return invalidField("body", name, "is not a field of this request")
	}
	return &Error{Code: CodeMalformed, Detail: "the body could not be read", Err: err}
}

// typeName turns a reflect kind name into the JSON type a client sees.
func typeName(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	}
	return "of another type"
}

// readBody reads the whole request body (already capped by the route's
// body limit).
func readBody(c echo.Context) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(c.Request().Body); err != nil {
		var apiErr *Error
		if errors.As(err, &apiErr) {
			return nil, err
		}
		return nil, &Error{Code: CodeMalformed, Detail: "the body could not be read", Err: err}
	}
	return buf.Bytes(), nil
}
