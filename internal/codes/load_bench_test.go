package codes

import "testing"

// BenchmarkLoad measures decoding and indexing the embedded data, which
// happens once per process.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := load(); err != nil {
			b.Fatal(err)
		}
	}
}
