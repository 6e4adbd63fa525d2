// Command emptymaps mends easyjson's generated decoders
// (pkg/source/files/internal/quickjson) so that an empty JSON object
// decodes into an empty map, as encoding/json and so Kubernetes decode
// it, and not into nil:
//
//	if !in.IsDelim('}') {          X = make(T)
//		X = make(T)          ->
//	} else {
//		X = nil
//	}
//
// It rewrites the file in place and fails when it finds no such branch,
// so that a new easyjson that writes them otherwise is noticed rather
// than left undone. hack/generate.sh runs it after easyjson.
package main

import (
	"fmt"
	"go/format"
	"os"
	"regexp"
)

var emptyMapIsNil = regexp.MustCompile(`if !in\.IsDelim\('\}'\) \{\n\s*(\S+) = (make\(map\[[^\n]*\))\n\s*\} else \{\n\s*(\S+) = nil\n\s*\}`)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: emptymaps FILE")
		os.Exit(2)
	}
	if err := mend(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "emptymaps:", err)
		os.Exit(1)
	}
}

func mend(path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	n := 0
	out := emptyMapIsNil.ReplaceAllFunc(src, func(m []byte) []byte {
		g := emptyMapIsNil.FindSubmatch(m)
		if string(g[1]) != string(g[3]) {
			return m // not the branch pair this mends
		}
		n++
		return []byte(fmt.Sprintf("%s = %s", g[1], g[2]))
	})
	if n == 0 {
		return fmt.Errorf("%s: no empty object decoded into a nil map; has easyjson changed?", path)
	}
	if out, err = format.Source(out); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, out, 0o644)
}
