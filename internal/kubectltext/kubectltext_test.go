package kubectltext_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"k8s.io/kubectl/pkg/util/i18n"

	// Translates `kubectl get`'s help in its variables' initialization.
	_ "k8s.io/kubectl/pkg/cmd/get"

	_ "github.com/strata-dev/strata/internal/kubectltext"
)

// german is a string kubectl's de_DE catalogue translates ("Zeige eine
// oder mehrere Resourcen").
const german = "Display one or many resources"

// TestCatalogueUnloaded starts this test binary again in a German
// locale, with kubectl's get package linked in: had the catalogue been
// loaded when that package initialized, the string would come back in
// German.
func TestCatalogueUnloaded(t *testing.T) {
	if os.Getenv("KUBECTLTEXT_CHILD") != "" {
		fmt.Print(i18n.T(german))
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCatalogueUnloaded$")
	cmd.Env = append(os.Environ(), "KUBECTLTEXT_CHILD=1", "LC_ALL=de_DE.UTF-8")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != german {
		t.Errorf("T(%q) = %q in a German locale", german, got)
	}
}
