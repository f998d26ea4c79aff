package dsn

// The bridge from the recogniser registry to the free-text engine of
// text_engine.go.

func init() {
	register(Recogniser{
		Name:   "text",
		Order:  500,
		Detect: func(m *message) bool { return m.textPart != nil },
		Parse: func(m *message) ([]Result, error) {
			res := decodeText(textHeaderOf{m}, m.bodyText())
			if len(res) > 0 {
				if m.origOffset < 0 {
					(&looseFormat{}).section(m) // locate the quoted original
				}
				fallback, looked := "", false // looked up once, when needed
				for i := range res {
					if res[i].Recipient == "" {
						if !looked {
							if rs := fallbackRcpts(m); len(rs) > 0 {
								fallback = rs[0]
							}
							looked = true
						}
						res[i].Recipient = fallback
					}
				}
			}
			return res, nil
		},
	})
}

// textHeaderOf gives the text engine read access to the top-level header,
// RFC 2047 words decoded.
type textHeaderOf struct{ m *message }

// Get returns the first value of the named field, decoded.
func (h textHeaderOf) Get(key string) string {
	k := fieldNameString(key)
	switch k {
	case "from":
		return h.m.from
	case "subject":
		return h.m.subject
	}
	return decodeWords(h.m.hdr.get(k))
}
