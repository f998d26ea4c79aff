package demo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// node is one JSON value with the object keys kept in the order the API
// wrote them (encoding/json's maps would sort or shuffle them).
type node struct {
	kind   byte // '{' object, '[' array, 's' scalar
	keys   []string
	fields []*node // object values, in keys order
	items  []*node // array items
	scalar string  // the scalar as text: strings unquoted, null as "null"
}

// parseJSON reads one JSON document into a node tree.
func parseJSON(raw []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	n, err := parseNode(dec)
	if err != nil {
		return nil, fmt.Errorf("demo: read JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("demo: read JSON: trailing data after the document")
	}
	return n, nil
}

func parseNode(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &node{kind: '{'}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := parseNode(dec)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k)
				n.fields = append(n.fields, v)
			}
			_, err := dec.Token() // '}'
			return n, err
		case '[':
			n := &node{kind: '['}
			for dec.More() {
				v, err := parseNode(dec)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, v)
			}
			_, err := dec.Token() // ']'
			return n, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case string:
		return &node{kind: 's', scalar: t}, nil
	case nil:
		return &node{kind: 's', scalar: "null"}, nil
	default:
		return &node{kind: 's', scalar: fmt.Sprint(t)}, nil
	}
}

// scalarLine renders the scalar fields of an object as "k=v  k=v".
func (n *node) scalarLine() string {
	var parts []string
	for i, k := range n.keys {
		if n.fields[i].kind == 's' {
			parts = append(parts, k+"="+n.fields[i].scalar)
		}
	}
	return strings.Join(parts, "  ")
}

// RenderJSON writes the JSON document raw as an indented outline that keeps
// every key and value the document holds, in its order: an object's scalar
// fields as "key: value", nested values indented below their key, and each
// object of an array as one "- k=v  k=v" line of its scalar fields with its
// nested values indented below. It computes nothing: every figure printed
// is one the document carries.
func RenderJSON(w io.Writer, raw []byte, indent string) error {
	n, err := parseJSON(raw)
	if err != nil {
		return err
	}
	var b strings.Builder
	render(&b, n, indent)
	_, err = io.WriteString(w, b.String())
	return err
}

func render(b *strings.Builder, n *node, ind string) {
	switch n.kind {
	case 's':
		b.WriteString(ind + n.scalar + "\n")
	case '{':
		if len(n.keys) == 0 {
			b.WriteString(ind + "{}\n")
		}
		renderFields(b, n, ind, false)
	case '[':
		if len(n.items) == 0 {
			b.WriteString(ind + "[]\n")
		}
		for _, it := range n.items {
			switch it.kind {
			case 's':
				b.WriteString(ind + "- " + it.scalar + "\n")
			case '{':
				b.WriteString(strings.TrimRight(ind+"- "+it.scalarLine(), " ") + "\n")
				renderFields(b, it, ind+"    ", true)
			default:
				b.WriteString(ind + "-\n")
				render(b, it, ind+"  ")
			}
		}
	}
}

// renderFields writes the fields of object n; with nestedOnly, only those
// that are not scalars (the caller printed the scalars on one line).
func renderFields(b *strings.Builder, n *node, ind string, nestedOnly bool) {
	for i, k := range n.keys {
		v := n.fields[i]
		switch {
		case v.kind == 's':
			if !nestedOnly {
				b.WriteString(ind + k + ": " + v.scalar + "\n")
			}
		case v.kind == '[' && len(v.items) == 0:
			b.WriteString(ind + k + ": []\n")
		case v.kind == '{' && len(v.keys) == 0:
			b.WriteString(ind + k + ": {}\n")
		default:
			b.WriteString(ind + k + ":\n")
			render(b, v, ind+"  ")
		}
	}
}
