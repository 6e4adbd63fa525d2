package cli

import (
	"strings"
	"testing"
)

// TestCobraCommandsAnswerLikeOurs: the commands cobra adds (help,
// completion) and an unknown command answer as Strata's commands do: an
// error is one line on stderr with exit 1 and nothing on stdout; help
// and completion scripts print with exit 0.
func TestCobraCommandsAnswerLikeOurs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		// err is the whole error line; "" for a success whose stdout
		// starts with out.
		err, out string
	}{
		{args: []string{"describ"}, err: `error: unknown command "describ" for "strata": did you mean "describe"? (strata --help lists the commands)`},
		{args: []string{"nosuch"}, err: `error: unknown command "nosuch" for "strata" (strata --help lists the commands)`},
		{args: []string{"help", "nosuch"}, err: `error: unknown command "nosuch" for "strata" (strata --help lists the commands)`},
		{args: []string{"help", "explian"}, err: `error: unknown command "explian" for "strata": did you mean "explain"? (strata --help lists the commands)`},
		{args: []string{"help", "completion", "bsh"}, err: `error: unknown command "bsh" for "strata completion": did you mean "bash"? (strata completion --help lists the commands)`},
		{args: []string{"completion", "nosuch"}, err: `error: strata completion: unknown shell "nosuch": one of bash, fish, powershell, zsh; e.g. strata completion bash > /etc/bash_completion.d/strata`},
		{args: []string{"completion", "bash", "zsh"}, err: `error: strata completion bash takes no arguments, got "zsh"; e.g. strata completion bash > strata.bash`},
		{args: []string{"help", "describe"}, out: "Describes an object"},
		{args: []string{"help", "get", "policies"}, out: "Lists every policy object"},
		{args: []string{"help"}, out: "Gateway API policy attachment"},
		{args: []string{}, out: "Gateway API policy attachment"},
		{args: []string{"completion"}, out: "Generate the autocompletion script"},
		{args: []string{"completion", "bash"}, out: "# bash completion V2 for strata"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errOut, code := strata(t, "", tc.args...)
			if tc.err != "" {
				if code != 1 || out != "" || errOut != tc.err+"\n" {
					t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 and\n%s", code, out, errOut, tc.err)
				}
				return
			}
			if code != 0 || errOut != "" || !strings.HasPrefix(out, tc.out) {
				t.Fatalf("exit %d, stderr %q, stdout %.80q...; want exit 0 and stdout starting %q", code, errOut, out, tc.out)
			}
		})
	}
	// The root runs (to validate its arguments); its usage does not say
	// so, as before.
	if out, _, _ := strata(t, "", "--help"); strings.Contains(out, "strata [flags]") || !strings.Contains(out, "strata [command]") {
		t.Errorf("root usage:\n%s", out)
	}
}
