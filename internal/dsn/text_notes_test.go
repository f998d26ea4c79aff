package dsn

import "testing"

func TestTextNotesDomino(t *testing.T) {
	runTextCases(t, []textCase{
		{file: "text-notes-01.eml", format: "notes", want: []textWant{{"xena@example.com", "5.0.0", "", "userunknown"}}},
		{file: "text-domino-01.eml", format: "domino", want: []textWant{{"yan@example.com", "5.0.0", "", "userunknown"}}},
	})
}
