package store

import (
	"database/sql/driver"
	"fmt"
	"strings"
)

// StringArray is a PostgreSQL text[] column (database/sql has no array
// support of its own). NULL elements are read as "".
type StringArray []string

// Value implements driver.Valuer: the array's text form, every element
// quoted.
func (a StringArray) Value() (driver.Value, error) {
	if a == nil {
		return "{}", nil
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, s := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		for _, r := range s {
			if r == '"' || r == '\\' {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String(), nil
}

// Scan implements sql.Scanner for the text form of a one-dimensional array.
func (a *StringArray) Scan(src any) error {
	var s string
	switch v := src.(type) {
	case nil:
		*a = nil
		return nil
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return fmt.Errorf("store: scan text[]: unsupported type %T", src)
	}
	out, err := parseArray(s)
	if err != nil {
		return err
	}
	*a = out
	return nil
}

// parseArray parses PostgreSQL's array output format ({a,"b c",NULL}).
func parseArray(s string) ([]string, error) {
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, fmt.Errorf("store: scan text[]: malformed array %q", s)
	}
	body := s[1 : len(s)-1]
	out := []string{}
	if body == "" {
		return out, nil
	}
	for i := 0; i <= len(body); {
		var elem strings.Builder
		quoted := false
		if i < len(body) && body[i] == '"' {
			quoted = true
			i++
			for i < len(body) && body[i] != '"' {
				if body[i] == '\\' && i+1 < len(body) {
					i++
				}
				elem.WriteByte(body[i])
				i++
			}
			if i >= len(body) {
				return nil, fmt.Errorf("store: scan text[]: unterminated quote in %q", s)
			}
			i++ // closing quote
		} else {
			for i < len(body) && body[i] != ',' {
				elem.WriteByte(body[i])
				i++
			}
		}
		v := elem.String()
		if !quoted && v == "NULL" {
			v = ""
		}
		out = append(out, v)
		if i < len(body) && body[i] != ',' {
			return nil, fmt.Errorf("store: scan text[]: malformed array %q", s)
		}
		i++
	}
	return out, nil
}
