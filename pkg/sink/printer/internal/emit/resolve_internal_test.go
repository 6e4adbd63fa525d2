package emit

import "testing"

// TestMaxResolveWord checks that maxResolveWord, below which
// resolvesToString looks a string up in resolveMap, is the length of its
// longest word: shorter and a word would be missed.
func TestMaxResolveWord(t *testing.T) {
	longest := 0
	for w := range resolveMap {
		longest = max(longest, len(w))
	}
	if longest != maxResolveWord {
		t.Fatalf("maxResolveWord is %d, resolveMap's longest word has %d bytes", maxResolveWord, longest)
	}
}
