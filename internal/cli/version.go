package cli

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// Version is what `strata version` prints, read from the build information the Go toolchain embeds.
type Version struct {
	Version    string `json:"version"`              // the main module's version: a tag, a pseudo-version, or "(devel)".
	Commit     string `json:"commit,omitempty"`     // the VCS revision of the build; empty outside a checkout.
	CommitTime string `json:"commitTime,omitempty"` // the revision's commit time (RFC 3339).
	// Dirty says the checkout had uncommitted changes: such a binary is not the commit it names.
	Dirty     bool   `json:"dirty"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// versionOf reads Version from the build information; ok is false without any.
func versionOf(bi *debug.BuildInfo, ok bool) Version {
	v := Version{Version: "(unknown)", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if !ok || bi == nil {
		return v
	}
	v.GoVersion = bi.GoVersion
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.CommitTime = s.Value
		case "vcs.modified":
			v.Dirty = s.Value == "true"
		}
	}
	return v
}

// String is the one line of `strata --version`.
func (v Version) String() string {
	s := "strata " + v.Version
	if v.Commit != "" {
		s += " (commit " + v.Commit
		if v.Dirty {
			s += ", dirty"
		}
		s += ")"
	}
	return s + " " + v.GoVersion + " " + v.Platform
}

func newVersion(s Streams) *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:     "version",
		Short:   "Print the version, commit and Go version this binary was built from",
		Example: "  strata version -o json",
		Args:    arity(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := versionOf(debug.ReadBuildInfo())
			switch format {
			case "":
				fmt.Fprintf(s.Out, "Version:    %s\nCommit:     %s\nCommitTime: %s\nDirty:      %t\nGoVersion:  %s\nPlatform:   %s\n",
					v.Version, orUnknown(v.Commit), orUnknown(v.CommitTime), v.Dirty, v.GoVersion, v.Platform)
				return nil
			case "json":
				b, err := json.MarshalIndent(v, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(s.Out, "%s\n", b)
				return err
			case "yaml":
				b, err := yaml.Marshal(v)
				if err != nil {
					return err
				}
				_, err = s.Out.Write(b)
				return err
			}
			return fmt.Errorf("--output %q: want yaml or json", format)
		},
	}
	c.Flags().StringVarP(&format, "output", "o", "", "output format: yaml or json (default: human-readable)")
	return c
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}
