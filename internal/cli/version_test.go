package cli

import (
	"bytes"
	"encoding/json"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// The version comes from the toolchain's build information, so a binary
// built by `go install`, by hack/image or by hand names the same things.
func TestVersionOf(t *testing.T) {
	platform := runtime.GOOS + "/" + runtime.GOARCH
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want Version
		line string
	}{
		{"no build information", nil, false,
			Version{Version: "(unknown)", GoVersion: runtime.Version(), Platform: platform},
			"strata (unknown) " + runtime.Version() + " " + platform},
		{"tagged release", &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Version: "v0.2.0"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-11-24T06:00:00Z"}, {Key: "vcs.modified", Value: "false"}}}, true,
			Version{Version: "v0.2.0", Commit: "0123abcd", CommitTime: "2026-11-24T06:00:00Z", GoVersion: "go1.26.1", Platform: platform},
			"strata v0.2.0 (commit 0123abcd) go1.26.1 " + platform},
		{"dirty checkout", &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Version: "v0.2.1-0.20261124060000-0123abcd+dirty"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.modified", Value: "true"}}}, true,
			Version{Version: "v0.2.1-0.20261124060000-0123abcd+dirty", Commit: "0123abcd", Dirty: true, GoVersion: "go1.26.1", Platform: platform},
			"strata v0.2.1-0.20261124060000-0123abcd+dirty (commit 0123abcd, dirty) go1.26.1 " + platform},
		{"built without VCS stamping", &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Version: "(devel)"}}, true,
			Version{Version: "(devel)", GoVersion: "go1.26.1", Platform: platform},
			"strata (devel) go1.26.1 " + platform},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := versionOf(tc.bi, tc.ok)
			if got != tc.want {
				t.Errorf("versionOf = %+v, want %+v", got, tc.want)
			}
			if got.String() != tc.line {
				t.Errorf("String = %q, want %q", got.String(), tc.line)
			}
		})
	}
}

func TestVersionCommand(t *testing.T) {
	run := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := Main(args, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut}); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		return out.String()
	}
	var v Version
	if err := json.Unmarshal([]byte(run("version", "-o", "json")), &v); err != nil {
		t.Fatal(err)
	}
	if v.GoVersion == "" || v.Platform != runtime.GOOS+"/"+runtime.GOARCH {
		t.Errorf("version -o json = %+v", v)
	}
	if got, want := run("--version"), v.String()+"\n"; got != want {
		t.Errorf("--version = %q, want %q", got, want)
	}
	if got := run("version"); !strings.HasPrefix(got, "Version:    "+v.Version+"\n") {
		t.Errorf("version = %q", got)
	}
	var errOut bytes.Buffer
	if code := Main([]string{"version", "-o", "xml"}, Streams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &errOut}); code != 1 || !strings.Contains(errOut.String(), `"xml"`) {
		t.Errorf("version -o xml: exit %d, %q", code, errOut.String())
	}
}
