package dsn

import "testing"

func TestTextMessagingServer(t *testing.T) {
	runTextCases(t, []textCase{
		{file: "text-messagingserver-01.eml", format: "messagingserver", want: []textWant{{"hank@example.org", "5.1.1", "550", ""}}},
	})
}
