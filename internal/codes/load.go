package codes

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
)

//go:embed data/*.json
var dataFS embed.FS

// groupOrder is the order in which data files are read; List returns
// entries in this order, then in file order.
var groupOrder = []string{"enhanced", "reply", "google", "microsoft", "yahoo", "apple", "others"}

// Group describes one data file: a source group of entries.
type Group struct {
	ID      string // file name without extension, e.g. "google"
	Name    string // e.g. "Gmail and Google Workspace"
	Entries int    // number of entries in the file
}

// fileData is the JSON shape of one data file. Sources are declared once
// per file under a key and referenced by key from entries.
type fileData struct {
	Group        string            `json:"group"`
	Name         string            `json:"name"`
	ProviderName map[string]string `json:"provider_names"`
	Sources      map[string]Source `json:"sources"`
	Entries      []fileEntry       `json:"entries"`
}

type fileEntry struct {
	Entry
	SourceKeys []string `json:"sources"`
}

// index is the immutable, loaded knowledge base.
type index struct {
	entries    []*Entry
	byID       map[string]*Entry
	byEnhanced map[string][]*Entry // exact enhanced code -> entries carrying it
	byReply    map[string][]*Entry // reply code -> entries carrying it
	replyOnly  map[string][]*Entry // reply code -> entries carrying it and no enhanced code
	ranged     []*Entry            // entries whose enhanced code is a range
	textOnly   []*Entry            // entries with neither code (matched by text alone)
	withText   []*Entry            // entries with Match fragments
	generic    map[string]*Entry   // "451", "4.3.0": the generic entry for a code
	groups     []Group
}

var (
	loadOnce sync.Once
	loaded   *index
	loadErr  error
)

// get returns the loaded index, loading the embedded data on first use.
// On a load error it returns an empty index; Err reports the error.
func get() *index {
	loadOnce.Do(func() {
		loaded, loadErr = load()
		if loadErr != nil {
			loaded = &index{byID: map[string]*Entry{}, generic: map[string]*Entry{}}
		}
	})
	return loaded
}

// Err returns the error met while loading the embedded data, or nil. The
// data is compiled into the binary and checked by the package tests, so a
// non-nil error means a broken build; callers may check it at startup.
func Err() error {
	get()
	return loadErr
}

// Groups returns the source groups with their entry counts, in load order.
func Groups() []Group {
	g := get().groups
	out := make([]Group, len(g))
	copy(out, g)
	return out
}

func load() (*index, error) {
	ix := &index{
		byID:       map[string]*Entry{},
		byEnhanced: map[string][]*Entry{},
		byReply:    map[string][]*Entry{},
		replyOnly:  map[string][]*Entry{},
		generic:    map[string]*Entry{},
	}
	names, err := dataFS.ReadDir("data")
	if err != nil {
		return nil, fmt.Errorf("codes: read data: %w", err)
	}
	have := map[string]bool{}
	for _, n := range names {
		have[strings.TrimSuffix(n.Name(), ".json")] = true
	}
	for g := range have {
		if !contains(groupOrder, g) {
			return nil, fmt.Errorf("codes: data file %s.json is not a known group", g)
		}
	}
	for _, g := range groupOrder {
		if !have[g] {
			return nil, fmt.Errorf("codes: data file %s.json missing", g)
		}
		b, err := dataFS.ReadFile(path.Join("data", g+".json"))
		if err != nil {
			return nil, fmt.Errorf("codes: read %s: %w", g, err)
		}
		var fd fileData
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&fd); err != nil {
			return nil, fmt.Errorf("codes: decode %s.json: %w", g, err)
		}
		if fd.Group != g {
			return nil, fmt.Errorf("codes: %s.json declares group %q", g, fd.Group)
		}
		for i := range fd.Entries {
			fe := &fd.Entries[i]
			e := new(Entry)
			*e = fe.Entry
			e.Group = g
			if e.ProviderName == "" {
				e.ProviderName = fd.ProviderName[e.Provider]
			}
			for _, k := range fe.SourceKeys {
				s, ok := fd.Sources[k]
				if !ok {
					return nil, fmt.Errorf("codes: %s.json entry %s: unknown source %q", g, e.ID, k)
				}
				e.Sources = append(e.Sources, s)
			}
			for j, m := range e.Match {
				e.Match[j] = strings.ToLower(m)
			}
			if err := ix.add(e); err != nil {
				return nil, fmt.Errorf("codes: %s.json: %w", g, err)
			}
		}
		ix.groups = append(ix.groups, Group{ID: g, Name: fd.Name, Entries: len(fd.Entries)})
	}
	for _, list := range ix.byEnhanced {
		sortStable(list)
	}
	return ix, nil
}

func (ix *index) add(e *Entry) error {
	if e.ID == "" {
		return fmt.Errorf("entry with empty id (title %q)", e.Title)
	}
	if _, dup := ix.byID[e.ID]; dup {
		return fmt.Errorf("duplicate id %q", e.ID)
	}
	if e.EnhancedCode != "" {
		if err := e.parseRange(); err != nil {
			return fmt.Errorf("entry %s: %w", e.ID, err)
		}
	}
	ix.byID[e.ID] = e
	ix.entries = append(ix.entries, e)
	switch {
	case e.rangeHi != 0:
		ix.ranged = append(ix.ranged, e)
	case e.EnhancedCode != "":
		ix.byEnhanced[e.EnhancedCode] = append(ix.byEnhanced[e.EnhancedCode], e)
	}
	if e.ReplyCode != "" {
		ix.byReply[e.ReplyCode] = append(ix.byReply[e.ReplyCode], e)
		if e.EnhancedCode == "" {
			ix.replyOnly[e.ReplyCode] = append(ix.replyOnly[e.ReplyCode], e)
		}
	}
	if e.ReplyCode == "" && e.EnhancedCode == "" {
		ix.textOnly = append(ix.textOnly, e)
	}
	if len(e.Match) > 0 {
		ix.withText = append(ix.withText, e)
	}
	if e.Provider == ProviderGeneric && len(e.Match) == 0 {
		key := e.Code()
		if _, dup := ix.generic[key]; dup {
			return fmt.Errorf("two generic entries for %s", key)
		}
		ix.generic[key] = e
	}
	return nil
}

// parseRange validates EnhancedCode and records a "4.7.500-699" range.
func (e *Entry) parseRange() error {
	code := e.EnhancedCode
	dash := strings.IndexByte(code, '-')
	if dash < 0 {
		if _, _, _, ok := splitStatus(code); !ok {
			return fmt.Errorf("malformed enhanced code %q", code)
		}
		return nil
	}
	cls, subj, lo, ok := splitStatus(code[:dash])
	hi, err := strconv.Atoi(code[dash+1:])
	if !ok || err != nil || hi <= lo || hi > 999 {
		return fmt.Errorf("malformed enhanced code range %q", code)
	}
	e.rangeClass, e.rangeSubject, e.rangeLo, e.rangeHi = cls, subj, lo, hi
	return nil
}

// sortStable keeps entries with text fragments after exact-code generic
// entries; the order only matters for deterministic output of WithCode.
func sortStable(list []*Entry) {
	sort.SliceStable(list, func(i, j int) bool {
		return list[i].Provider == ProviderGeneric && list[j].Provider != ProviderGeneric
	})
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
