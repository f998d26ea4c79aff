package report

import (
	"encoding/json"
	"fmt"
	"sync"
)

// DefaultCacheSize is the number of reports ServiceFor's cache keeps. A
// 30-day report takes about 30 KB (its value and its JSON), a 366-day one
// about 250 KB, so the cache stays within tens of megabytes in practice
// (at most about 250 MB if every entry covered a year).
const DefaultCacheSize = 1024

// Cache keeps computed reports by query (workspace, campaign, zone, days)
// with the stamp they were computed at. It is safe for concurrent use. When
// full, it drops about a tenth of its entries (arbitrary ones) to make room.
type Cache struct {
	max     int
	mu      sync.Mutex
	entries map[cacheKey]*entry
}

// NewCache returns a cache of at most size reports (at least 1).
func NewCache(size int) *Cache {
	return &Cache{max: max(size, 1), entries: map[cacheKey]*entry{}}
}

type cacheKey struct {
	workspace, campaign int64
	zone, from, to      string
}

// entry is one computed report; its JSON is encoded once, on first use.
type entry struct {
	stamp  stamp
	report *Report

	once sync.Once
	json []byte
	err  error
}

func (e *entry) encoded() ([]byte, error) {
	e.once.Do(func() {
		e.json, e.err = json.Marshal(e.report)
		if e.err != nil {
			e.err = fmt.Errorf("report: encode: %w", e.err)
		}
	})
	return e.json, e.err
}

func (c *Cache) get(k cacheKey) *entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[k]
}

func (c *Cache) put(k cacheKey, e *entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[k]; !ok && len(c.entries) >= c.max {
		drop := max(1, c.max/10)
		for old := range c.entries {
			delete(c.entries, old)
			if drop--; drop == 0 {
				break
			}
		}
	}
	c.entries[k] = e
}

// Len returns the number of reports kept.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
