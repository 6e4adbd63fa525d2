package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// controllerRESTConfig is the controller's connection to the API server.
func controllerRESTConfig(kube *genericclioptions.ConfigFlags) (*rest.Config, error) {
	if kube.APIServer == nil || *kube.APIServer == "" {
		raw, err := kube.ToRawKubeConfigLoader().RawConfig()
		if err != nil {
			return nil, fmt.Errorf("kubeconfig: %w", err)
		}
		if len(raw.Clusters) == 0 {
			if _, inErr := rest.InClusterConfig(); inErr != nil {
				return nil, noCluster(kube, inErr)
			}
		}
	}
	cfg, err := kube.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	return cfg, nil
}

// noCluster says where the controller looked for a cluster, in client-go's order.
func noCluster(kube *genericclioptions.ConfigFlags, inCluster error) error {
	var tried []string
	if kube.KubeConfig != nil && *kube.KubeConfig != "" {
		tried = append(tried, fmt.Sprintf("--kubeconfig %s (%s)", *kube.KubeConfig, fileState(*kube.KubeConfig)))
	} else if env := os.Getenv(clientcmd.RecommendedConfigPathEnvVar); env != "" {
		for _, p := range filepath.SplitList(env) {
			tried = append(tried, fmt.Sprintf("KUBECONFIG file %s (%s)", p, fileState(p)))
		}
	} else {
		tried = append(tried, "KUBECONFIG (not set)",
			fmt.Sprintf("%s (%s)", clientcmd.RecommendedHomeFile, fileState(clientcmd.RecommendedHomeFile)))
	}
	reason := inCluster.Error()
	if errors.Is(inCluster, rest.ErrNotInCluster) {
		reason = "KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT not set"
	}
	tried = append(tried, fmt.Sprintf("in-cluster config (%s)", reason))
	return fmt.Errorf("no cluster to connect to; tried %s: set --kubeconfig or KUBECONFIG, or run in a pod with a service account", strings.Join(tried, ", "))
}

// fileState is what a kubeconfig path held, for noCluster's message.
func fileState(path string) string {
	switch _, err := os.Stat(path); {
	case errors.Is(err, os.ErrNotExist):
		return "does not exist"
	case err != nil:
		return err.Error()
	default:
		return "no clusters"
	}
}
