package report

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// ParseZone returns the IANA time zone name ("" means UTC). "Local" and
// names the tz database does not hold are refused.
func ParseZone(name string) (*time.Location, error) {
	if name == "" {
		return time.UTC, nil
	}
	if name == "Local" {
		return nil, errors.New("report: time zone \"Local\" is not an IANA zone name")
	}
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name) // reads the tz database: kept below
	if err != nil {
		return nil, fmt.Errorf("report: time zone %q: not an IANA zone name such as Europe/Paris", name)
	}
	zones.Store(name, loc)
	return loc, nil
}

// zones keeps the locations ParseZone loaded, by name (only names the tz
// database holds, so it stays as small as that database).
var zones sync.Map

// Days resolves the from and to parameters (dates YYYY-MM-DD, "" for the
// default) into the report's first and last day in zone at now: to
// defaults to today, from to 29 days before to (30 days). field names the
// parameter at fault when err is not nil.
func Days(from, to string, zone *time.Location, now time.Time) (first, last time.Time, field string, err error) {
	parse := func(s string) (time.Time, error) {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return time.Time{}, errors.New("must be a date YYYY-MM-DD")
		}
		if d.Before(MinDate) {
			return time.Time{}, errors.New("must be 2000-01-01 or later")
		}
		return d, nil
	}
	if to == "" {
		y, m, d := now.In(zone).Date()
		last = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	} else if last, err = parse(to); err != nil {
		return first, last, "to", err
	}
	if from == "" {
		first = last.AddDate(0, 0, -29)
	} else if first, err = parse(from); err != nil {
		return first, last, "from", err
	}
	if last.Before(first) {
		return first, last, "to", errors.New("must not be before from")
	}
	if n := int(last.Sub(first).Hours()/24) + 1; n > MaxDays {
		return first, last, "from", fmt.Errorf("the range holds %d days; at most %d", n, MaxDays)
	}
	return first, last, "", nil
}
