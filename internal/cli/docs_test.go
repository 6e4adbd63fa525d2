package cli

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// docsCLI is the page whose transcripts TestCLIDocTranscripts replays,
// relative to the repository root.
const docsCLI = "docs/cli.md"

// A transcript is one `$ ...` line of a fenced block of a document and
// the lines the document shows after it (up to the next `$ ` line or the
// end of the block): what the command prints, stdout then stderr.
type transcript struct {
	line    int    // 1-based line of the `$ ` line
	command string // the line without its "$ "
	output  string // the lines shown after it, each ended by "\n"
}

// transcripts returns the transcripts of the fenced blocks of a Markdown
// document, in document order.
func transcripts(doc string) ([]transcript, error) {
	var (
		all     []transcript
		inBlock bool
		cur     *transcript
	)
	flush := func() {
		if cur != nil {
			all = append(all, *cur)
			cur = nil
		}
	}
	sc := bufio.NewScanner(strings.NewReader(doc))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```"):
			flush()
			inBlock = !inBlock
		case !inBlock:
		case strings.HasPrefix(line, "$ "):
			flush()
			cur = &transcript{line: n, command: strings.TrimPrefix(line, "$ ")}
		case cur != nil:
			cur.output += line + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read document: %w", err)
	}
	if inBlock {
		return nil, fmt.Errorf("a fenced block is not closed")
	}
	flush()
	return all, nil
}

// shellWords splits a command line as a POSIX shell would split a simple
// command: words separated by blanks, 'single quotes' taken literally,
// "double quotes" with \ escaping only ", \, $ and `, and \ outside quotes
// escaping the next character. What a test cannot replay (pipes,
// redirections, substitutions, several commands) is an error.
func shellWords(line string) ([]string, error) {
	var (
		words  []string
		word   strings.Builder
		inWord bool
	)
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case r == '\'':
			inWord = true
			closed := false
			for i++; i < len(rs); i++ {
				if rs[i] == '\'' {
					closed = true
					break
				}
				word.WriteRune(rs[i])
			}
			if !closed {
				return nil, fmt.Errorf("unterminated single quote in %q", line)
			}
		case r == '"':
			inWord = true
			closed := false
			for i++; i < len(rs); i++ {
				c := rs[i]
				if c == '"' {
					closed = true
					break
				}
				if c == '\\' && i+1 < len(rs) && strings.ContainsRune("\"\\$`", rs[i+1]) {
					i++
					c = rs[i]
				} else if c == '$' || c == '`' {
					return nil, fmt.Errorf("substitution in double quotes in %q: not replayable", line)
				}
				word.WriteRune(c)
			}
			if !closed {
				return nil, fmt.Errorf("unterminated double quote in %q", line)
			}
		case r == '\\':
			if i+1 == len(rs) {
				return nil, fmt.Errorf("line continuation in %q: write the command on one line", line)
			}
			inWord = true
			i++
			word.WriteRune(rs[i])
		case strings.ContainsRune("|&;<>()$`", r):
			return nil, fmt.Errorf("%q in %q: a transcript is one command without pipes, redirections or substitutions", r, line)
		case r == '#' && !inWord:
			return nil, fmt.Errorf("comment in %q: a transcript shows what the command prints, nothing else", line)
		default:
			inWord = true
			word.WriteRune(r)
		}
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

func TestShellWords(t *testing.T) {
	for _, c := range []struct {
		line string
		want []string
		err  string
	}{
		{line: "strata get policies -n frosting", want: []string{"strata", "get", "policies", "-n", "frosting"}},
		{line: "  a   b  ", want: []string{"a", "b"}},
		{line: `strata get -l 'team=web,tier!=gold'`, want: []string{"strata", "get", "-l", "team=web,tier!=gold"}},
		{line: `a -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}'`, want: []string{"a", "-o", `jsonpath={range .items[*]}{.metadata.name}{"\n"}{end}`}},
		{line: `a "x y" "q\"r\\s\n"`, want: []string{"a", "x y", `q"r\s\n`}},
		{line: `a x'y z'"w"`, want: []string{"a", "xy zw"}},
		{line: `a '' ""`, want: []string{"a", "", ""}},
		{line: `a b\ c`, want: []string{"a", "b c"}},
		{line: `a 'é' "ü"`, want: []string{"a", "é", "ü"}},
		{line: "a 'b", err: "unterminated single quote"},
		{line: `a "b`, err: "unterminated double quote"},
		{line: "a | b", err: "pipes"},
		{line: "a > out", err: "redirections"},
		{line: "a $(b)", err: "substitutions"},
		{line: `a "$HOME"`, err: "substitution"},
		{line: "a # note", err: "comment"},
		{line: `a \`, err: "line continuation"},
	} {
		t.Run(c.line, func(t *testing.T) {
			got, err := shellWords(c.line)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("words differ (-want +got):\n%s", d)
			}
		})
	}
}

func TestTranscriptsOfDocument(t *testing.T) {
	doc := "# t\n\n```\n$ strata a\nout 1\n\n$ strata b\n```\n\n$ not in a block\n```console\n$ cat f\nx\n```\n"
	got, err := transcripts(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := []transcript{
		{line: 4, command: "strata a", output: "out 1\n\n"},
		{line: 7, command: "strata b"},
		{line: 12, command: "cat f", output: "x\n"},
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(transcript{})); d != "" {
		t.Errorf("transcripts differ (-want +got):\n%s", d)
	}
	if _, err := transcripts("```\n$ strata a\n"); err == nil {
		t.Error("an unclosed block is not an error")
	}
}

// TestCLIDocTranscripts replays every `$ strata ...` line of docs/cli.md
// from the repository root (the docs' paths are relative to it) and
// checks that the document shows, byte for byte, what the command prints:
// stdout, then stderr. The exit code is 0 unless what is shown ends with
// an `error: ` line. `$ cat FILE` shows a file a later command reads;
// the file must hold exactly what is shown. Any other `$ ` line fails, as
// does a transcript whose input file is missing: the document must not
// show what the test cannot check.
func TestCLIDocTranscripts(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, docsCLI))
	if err != nil {
		t.Fatal(err)
	}
	ts, err := transcripts(string(doc))
	if err != nil {
		t.Fatalf("%s: %v", docsCLI, err)
	}
	if len(ts) == 0 {
		t.Fatalf("%s: no transcripts", docsCLI)
	}
	// Commands print paths as given (check's file:line, errors naming a
	// file), so they run where the document's reader runs them. t.Chdir
	// refuses parallel tests: nothing else runs meanwhile.
	t.Chdir(root)
	for _, tr := range ts {
		t.Run(fmt.Sprintf("line-%d", tr.line), func(t *testing.T) {
			where := fmt.Sprintf("%s:%d: $ %s", docsCLI, tr.line, tr.command)
			words, err := shellWords(tr.command)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			if len(words) == 0 {
				t.Fatalf("%s: no command", where)
			}
			switch words[0] {
			case "cat":
				checkCat(t, where, words[1:], tr.output)
			case "strata":
				checkStrata(t, where, words[1:], tr.output)
			default:
				t.Fatalf("%s: only strata and cat transcripts can be checked; show other commands without \"$ \"", where)
			}
		})
	}
}

// checkCat checks that the files of a `$ cat FILE...` transcript hold
// what the document shows.
func checkCat(t *testing.T, where string, files []string, shown string) {
	t.Helper()
	if len(files) == 0 {
		t.Fatalf("%s: cat of no file", where)
	}
	var got strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		got.Write(b)
	}
	if d := cmp.Diff(shown, got.String()); d != "" {
		t.Errorf("%s: the document does not show the file (-doc +file):\n%s", where, d)
	}
}

// checkStrata runs a `$ strata ...` transcript and compares what it
// prints, stdout then stderr, with what the document shows.
func checkStrata(t *testing.T, where string, args []string, shown string) {
	t.Helper()
	for _, f := range inputFiles(args) {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("%s: input %v: add it (internal/cli/testdata/docs/) and name it in the command", where, err)
		}
	}
	out, errOut, code := strata(t, "", args...)
	if d := cmp.Diff(shown, out+errOut); d != "" {
		t.Errorf("%s: the document does not show what the command prints (-doc +printed):\n%s", where, d)
	}
	lines := strings.Split(strings.TrimSuffix(shown, "\n"), "\n")
	wantFailure := strings.HasPrefix(lines[len(lines)-1], "error: ")
	switch {
	case wantFailure && code == 0:
		t.Errorf("%s: exit code 0, but the document shows an error", where)
	case !wantFailure && code != 0:
		t.Errorf("%s: exit code %d, but the document shows no error: line last", where, code)
	}
}

// inputFiles returns the files a command line reads: the values of the
// flags that name files, and of the -o formats that read one (-f - is
// stdin, not a file).
func inputFiles(args []string) []string {
	fileFlags := map[string]bool{
		"-f": true, "--filename": true, "--with-file": true, "--against": true,
		"--replace": true, "--add": true, "--template": true,
	}
	fileFormats := []string{"jsonpath-file=", "go-template-file=", "custom-columns-file=", "templatefile="}
	var files []string
	add := func(v string) {
		for _, f := range strings.Split(v, ",") {
			if f != "" && f != "-" {
				files = append(files, f)
			}
		}
	}
	for i := 0; i < len(args); i++ {
		name, value, inline := strings.Cut(args[i], "=")
		output := name == "-o" || name == "--output"
		if !fileFlags[name] && !output {
			continue
		}
		if !inline {
			if i+1 == len(args) {
				break
			}
			i++
			value = args[i]
		}
		switch {
		case fileFlags[name]:
			add(value)
		case output:
			for _, format := range fileFormats {
				if v, ok := strings.CutPrefix(value, format); ok {
					add(v)
				}
			}
		}
	}
	return files
}

func TestInputFiles(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"get", "policies", "-f", "a", "--filename=b,c", "-f", "-"}, []string{"a", "b", "c"}},
		{[]string{"diff", "-f", "base", "--against", "head", "--against=x.yaml"}, []string{"base", "head", "x.yaml"}},
		{[]string{"impact", "--add", "new.yaml", "--replace=-"}, []string{"new.yaml"}},
		{[]string{"get", "policies", "-o", "jsonpath-file=names.jsonpath", "--output=custom-columns-file=cols.txt"}, []string{"names.jsonpath", "cols.txt"}},
		{[]string{"get", "policies", "-o", "jsonpath={.items}", "-n", "baker", "-f"}, nil},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			if d := cmp.Diff(c.want, inputFiles(c.args)); d != "" {
				t.Errorf("files differ (-want +got):\n%s", d)
			}
		})
	}
}
