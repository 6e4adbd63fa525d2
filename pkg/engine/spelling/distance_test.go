package spelling

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"http", "http", 0},
		{"htpp", "http", 1}, // a transposition is one edit
		{"defualts", "defaults", 1},
		{"kitten", "sitting", 3},
		{"overides", "overrides", 1},
		{"ca", "abc", 3}, // optimal string alignment: no edit of a transposed pair
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
