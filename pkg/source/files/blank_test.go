package files

import (
	"testing"

	"sigs.k8s.io/yaml"
)

// TestBlank checks that the documents split skips without parsing are
// exactly those YAML reads as empty.
func TestBlank(t *testing.T) {
	cases := []struct {
		doc   string
		blank bool
	}{
		{"", true},
		{"\n\n", true},
		{"   \r\n  \n", true},
		{"  \t\r\n", false},
		{"\t# tab\n", false},
		{"# a comment\n  # another\n", true},
		{"#", true},
		{"a: 1\n", false},
		{"# c\nkind: x\n", false},
		{"...\n", false},
		{"%YAML 1.2\n", false},
		{"'#'\n", false},
	}
	for _, tc := range cases {
		t.Run(tc.doc, func(t *testing.T) {
			if got := blank([]byte(tc.doc)); got != tc.blank {
				t.Errorf("blank(%q) = %v, want %v", tc.doc, got, tc.blank)
			}
			if tc.blank {
				js, err := yaml.YAMLToJSON([]byte(tc.doc))
				if err != nil || string(js) != "null" {
					t.Errorf("YAMLToJSON(%q) = %s, %v; a blank document must read as null", tc.doc, js, err)
				}
			}
		})
	}
}
