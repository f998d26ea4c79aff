package store

// LoadQueriesForTest exposes loadQueries to the external tests.
var LoadQueriesForTest = loadQueries
